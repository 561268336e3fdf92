import { OneOf, OptionalInteger, OptionalText, RequiredText } from '@app/http';

/** PUT /restapi/json/v1/resources/{rid}/remotepasswordreset (docs/api/vault.md). */
export class ConfigureRemoteResetDto {
  /** The account of this resource that logs in to the target and changes other accounts' passwords. */
  @RequiredText(255) ACCOUNTNAME!: string;
  @OptionalInteger(1, 65535) PORT?: number;
  /** Host name or address to connect to; default the resource's DNS name, else its name. */
  @OptionalText(255) DNSNAME?: string;
  /** PostgreSQL: the database to connect to (default postgres). */
  @OptionalText(63) DATABASE?: string;
  /** off, require, verify (LDAP also starttls); default verify where the kind has TLS (LDAP: starttls). */
  @OneOf(['off', 'require', 'verify', 'starttls']) TLS?: 'off' | 'require' | 'verify' | 'starttls';
  /** PEM certificates that `verify` trusts instead of the system store. */
  @OptionalText(65_536) CACERT?: string;
  /** LDAP: the DN of an account, `{account}` standing for its name (escaped per RFC 4514). */
  @OptionalText(1000) USERDN?: string;
  /** Active Directory: the base DN its accounts are found under (stored as USERDN). */
  @OptionalText(1000) BASEDN?: string;
  /** Logging in with the stored password is a use of it: the gate may ask for a reason and a ticket. */
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
  /** SSH: the host key the operator expects (`SHA256:...`); without it the first key seen is trusted. */
  @OptionalText(100) HOSTKEYFINGERPRINT?: string;
}

/** POST .../verify and .../reconcile: the gate may ask for a reason and a ticket. */
export class RemoteUseDto {
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
}
