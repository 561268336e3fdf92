import { OptionalText, RequiredText } from '@app/http';

export class KeyNameDto {
  @RequiredText(255) keyName!: string;
}

/** addKeyStoreKey / updateKeyStoreKey (spec ops 16, 17); the key file is the part `File`. */
export class KeyVaultKeyDto extends KeyNameDto {
  @OptionalText(1000) description?: string;
  @OptionalText(255) datacenter?: string;
  /** Kept exactly as sent (no trimming); sealed at rest. */
  @OptionalText(4096) passphrase?: string;
  @OptionalText(100) keyType?: string;
  @OptionalText(255) instanceName?: string;
}
