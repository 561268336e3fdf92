/**
 * The connectors to the systems whose passwords the vault manages. One file per kind, all
 * behind this interface (after HashiCorp Vault's database plugins): connect with the
 * administrator credential, change one account's password, verify one password by logging
 * in, close. A connector decides nothing about access and never touches the vault's
 * tables: the caller hands it a credential the gate has already released.
 */
export type ConnectorKind = 'ssh' | 'postgresql' | 'mysql' | 'ldap' | 'ad';

/** How the connection is protected: `verify` checks the peer's certificate and name, `require` only encrypts. */
export type TlsMode = 'off' | 'require' | 'verify' | 'starttls';

/** Where a connector connects, as configured on the resource. */
export interface ConnectorTarget {
  host: string;
  port: number;
  /** The organisation whose recorded SSH host keys apply (ssh only). */
  orgId: number;
  /** PostgreSQL: the database to connect to. */
  database?: string;
  tls: TlsMode;
  /** PEM certificates `verify` trusts instead of the system store. */
  caCert?: string;
  /** LDAP: the DN template of an account, `{account}` standing for its escaped name. Active Directory: the base DN its accounts are found under. */
  userDn?: string;
  /** SSH: the host key the operator expects (`SHA256:...`). */
  expectedHostKey?: string;
  /** Connect and login deadline. */
  timeoutMs?: number;
}

export interface Credential {
  username: string;
  password: string;
}

/** A connection logged in with the administrator credential. */
export interface AdminSession {
  /** Proves the administrator may change other accounts' passwords (without changing any). */
  checkPrivilege(): Promise<void>;
  /** Sets `account`'s password; the name is passed as an identifier or DN component, never spliced. */
  changePassword(account: string, newPassword: string): Promise<void>;
  close(): Promise<void>;
}

export interface Connector {
  readonly kind: ConnectorKind;
  readonly defaultPort: number;
  /** The TLS modes this kind accepts (the first is the default). */
  readonly tlsModes: readonly TlsMode[];
  /**
   * What the target demands of a new password beyond the vault's policy, met by generated
   * passwords: at least `minLength` when the account names no policy of its own, and never the
   * account's name in it (Active Directory's complexity rule).
   */
  readonly passwordRules?: { minLength: number; notContainingAccount: boolean };
  /** Logs in as the administrator; throws a ConnectorError (auth_failed, unreachable, tls, ...). */
  connect(target: ConnectorTarget, admin: Credential): Promise<AdminSession>;
  /**
   * Logs in as `account` with `password`: true when accepted, false when refused; throws when
   * it cannot tell. `administrator`: the account is the resource's administrator, which logs
   * in as connect() does (LDAP: its name may be a whole DN).
   */
  verify(target: ConnectorTarget, account: string, password: string, administrator?: boolean): Promise<boolean>;
}

/**
 * Why a connector failed; `auth_failed` is the one that means "this password does not log in".
 * `policy`: the target refused the new password by its own rules (nothing changed); `expired`:
 * the password is right but the target wants it changed before it logs in.
 */
export type ConnectorFailure = 'unreachable' | 'timeout' | 'tls' | 'auth_failed' | 'permission_denied' | 'not_found' | 'invalid' | 'policy' | 'expired' | 'failed';

/** A connector's failure; the message names host, port and account only, never a password. */
export class ConnectorError extends Error {
  constructor(
    readonly reason: ConnectorFailure,
    message: string,
    /** True when nothing reached the target (connection refused, unknown host): a change certainly did not happen. */
    readonly unsent = false,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

export const DEFAULT_TIMEOUT_MS = 15_000;

/** `host:port`, with brackets around IPv6 literals. */
export function where(target: Pick<ConnectorTarget, 'host' | 'port'>): string {
  return target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}

/** Network-level errors common to every driver, as a ConnectorError; undefined when the error is something else. */
export function networkFailure(error: unknown, target: ConnectorTarget): ConnectorError | undefined {
  const e = error as NodeJS.ErrnoException & { library?: string };
  const at = where(target);
  switch (e?.code) {
    case 'ECONNREFUSED':
      return new ConnectorError('unreachable', `Cannot reach ${at}: connection refused`, true);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConnectorError('unreachable', `Cannot reach ${at}: unknown host`, true);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ECONNRESET':
    case 'EPIPE':
      return new ConnectorError('unreachable', `Cannot reach ${at}: ${e.code}`);
    case 'ETIMEDOUT':
      return new ConnectorError('timeout', `Cannot reach ${at}: timed out`);
  }
  const tls = tlsFailure(e);
  if (tls) return new ConnectorError('tls', `TLS with ${at} failed: ${tls}`, true);
  return undefined;
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/** Why a certificate was refused, when the error is a certificate or handshake failure. */
function tlsFailure(e: (NodeJS.ErrnoException & { library?: string }) | undefined): string | undefined {
  if (!e) return undefined;
  if (typeof e.code === 'string' && TLS_CODES.has(e.code)) return `the certificate was refused (${e.code})`;
  if ((typeof e.code === 'string' && e.code.startsWith('ERR_SSL_')) || e.library === 'SSL routines') return `handshake failed (${e.code ?? 'ssl'})`;
  return undefined;
}
