import { OptionalInteger, OptionalText, RequiredText } from '@app/http';

/**
 * saveDeploymentTarget: where deployCertificate writes. Either an existing SSH resource
 * (resourceName) or HOST/PORT/userName/password, which become one.
 */
export class DeploymentTargetDto {
  @RequiredText(100) serverName!: string;
  @OptionalText(255) resourceName?: string;
  @OptionalText(255) HOST?: string;
  @OptionalInteger(1, 65_535) PORT?: number;
  @OptionalText(64) userName?: string;
  @OptionalText(512) password?: string;
  /** With HOST: the host key the operator expects (`SHA256:...`), pinned before the first connection. */
  @OptionalText(100) HOSTKEYFINGERPRINT?: string;
  @RequiredText(1024) certificatePath!: string;
  @RequiredText(1024) keyPath!: string;
  @OptionalText(1024) chainPath?: string;
  @OptionalText(2000) reloadCommand?: string;
}

export class DeployCertificateDto {
  @RequiredText(255) common_name!: string;
  @OptionalText(100) serial_number?: string;
  @OptionalText(100) serverName?: string;
}
