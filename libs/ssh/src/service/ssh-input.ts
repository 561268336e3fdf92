import { OneOf, OptionalBoolean, OptionalInteger, OptionalText, RequiredSecret, RequiredText } from '@app/http';

// Input of the SSH operations, shared by both presentations (field names per the specs).

export class CreateSshKeyDto {
  @RequiredText(200) keyName!: string;
  @OptionalText(1024) passPhrase?: string;
  @OptionalText(1024) comment?: string;
  @OptionalText(10) length?: string;
  @OptionalText(40) keyType?: string;
}

export class ImportSshKeyDto {
  @RequiredText(200) keyName!: string;
  @OptionalText(1024) passphrase?: string;
}

export class KeyNameDto {
  @RequiredText(200) keyName!: string;
}

export class ExportSshKeyDto {
  @RequiredText(200) keyName!: string;
  @OneOf(['public', 'private']) keyExportType?: 'public' | 'private';
}

export class DeleteSshKeyDto {
  @RequiredText(200) key_name!: string;
  @OptionalBoolean() withoutDisassociation?: boolean;
}

export class ApplyCredentialsDto {
  @RequiredText(64) userName!: string;
  @RequiredSecret(512) password!: string;
  @RequiredText(300) resourceName!: string;
  @OptionalBoolean() isAdmin?: boolean;
  /** The host key the operator expects (`SHA256:...`); without it the first key seen is trusted. */
  @OptionalText(100) HOSTKEYFINGERPRINT?: string;
}

export class AcceptHostKeyDto {
  /** host or host:port, as resourceName elsewhere. */
  @RequiredText(300) resourceName!: string;
  /** The new key's fingerprint; without it, the key the host last presented (and was refused for). */
  @OptionalText(100) HOSTKEYFINGERPRINT?: string;
}

export class EnumerateUsersDto {
  @OptionalText(64) userName?: string;
  @RequiredText(300) resourceName!: string;
}

export class UserOnResourceDto {
  @RequiredText(64) userName!: string;
  @RequiredText(300) resourceName!: string;
}

export class AssociateKeyDto {
  @RequiredText(200) keyName!: string;
  @RequiredText(300) resourceName!: string;
  @RequiredText(64) userName!: string;
}

export class SshDiscoveryDto {
  @RequiredText(45) StartIpAddress!: string;
  @RequiredText(45) EndIpAddress!: string;
  @OptionalInteger(1, 65535) PORT?: number;
  @OptionalText(10) TIMEOUT?: string;
}
