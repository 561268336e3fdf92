import { OptionalInteger, OptionalText, RequiredText } from '@app/http';

/** PUT /restapi/json/v1/resources/{rid}/remotepasswordreset (docs/api/vault.md, "Remote password reset"). */
export class ConfigureRemoteResetDto {
  /** The account of this resource whose password logs in over SSH as root or a sudoer. */
  @RequiredText(255) ACCOUNTNAME!: string;
  @OptionalInteger(1, 65535) PORT?: number;
  /** Host name or address to connect to; default the resource's DNS name, else its name. */
  @OptionalText(255) DNSNAME?: string;
  /** Logging in with the stored password is a use of it: the gate may ask for a reason and a ticket. */
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
  /** The host key the operator expects (`SHA256:...`); without it the first key seen is trusted. */
  @OptionalText(100) HOSTKEYFINGERPRINT?: string;
}
