import type { Connection, ConnectionOptions } from 'mysql2/promise';
import { AdminSession, Connector, ConnectorError, ConnectorTarget, Credential, DEFAULT_TIMEOUT_MS, networkFailure, where } from './connector';
import { checkTlsMode, tlsOptions } from './tls';

const MODES = ['verify', 'require', 'off'] as const;

/**
 * MySQL and MariaDB: `ALTER USER 'name'@'host' IDENTIFIED BY ...`, the name and host as
 * escaped string literals (the session's sql_mode is set so that backslash escapes hold).
 * An account named `user@host` addresses that one entry when no user has the whole name.
 * The administrator needs the global CREATE USER privilege (or ALL) and SELECT on mysql.user.
 */
export const mysqlConnector: Connector = {
  kind: 'mysql',
  defaultPort: 3306,
  tlsModes: MODES,

  async connect(target, admin) {
    const connection = await login(target, admin);
    return new MysqlSession(connection, target, admin.username);
  },

  async verify(target, account, password) {
    try {
      const connection = await login(target, { username: account, password });
      await connection.end().catch(() => undefined);
      return true;
    } catch (error) {
      if (error instanceof ConnectorError && error.reason === 'auth_failed' && account.includes('@')) {
        // `user@host` names an entry; the login name is the part before the last @.
        return mysqlConnector.verify(target, account.slice(0, account.lastIndexOf('@')), password).catch(() => false);
      }
      if (error instanceof ConnectorError && error.reason === 'auth_failed') return false;
      throw error;
    }
  },
};

class MysqlSession implements AdminSession {
  constructor(
    private readonly connection: Connection,
    private readonly target: ConnectorTarget,
    private readonly admin: string,
  ) {}

  async checkPrivilege(): Promise<void> {
    const [rows] = await this.connection.query('SHOW GRANTS');
    const grants = (rows as Record<string, string>[]).map((row) => Object.values(row)[0]);
    const global = grants.filter((g) => /\bON \*\.\* TO\b/i.test(g));
    if (!global.some((g) => /^GRANT (ALL PRIVILEGES|.*\bCREATE USER\b)/i.test(g))) {
      throw new ConnectorError('permission_denied', `${this.admin} on ${where(this.target)} lacks the CREATE USER privilege`);
    }
  }

  async changePassword(account: string, newPassword: string): Promise<void> {
    const [user, host] = await this.entryOf(account);
    try {
      await this.connection.query('ALTER USER ?@? IDENTIFIED BY ?', [user, host, newPassword]);
    } catch (error) {
      throw mapError(error, this.target, this.admin, account);
    }
  }

  /** The (user, host) entry an account name means: the whole name as a user, else `user@host`. */
  private async entryOf(account: string): Promise<[string, string]> {
    checkName(account);
    const hosts = await this.hostsOf(account);
    if (hosts.length === 1) return [account, hosts[0]];
    if (hosts.length > 1) {
      throw new ConnectorError('invalid', `${account} exists for several hosts on ${where(this.target)} (${hosts.join(', ')}); name the account user@host`);
    }
    const at = account.lastIndexOf('@');
    if (at > 0) {
      const [user, host] = [account.slice(0, at), account.slice(at + 1)];
      if ((await this.hostsOf(user)).includes(host)) return [user, host];
    }
    throw new ConnectorError('not_found', `User ${account} does not exist on ${where(this.target)}`);
  }

  private async hostsOf(user: string): Promise<string[]> {
    try {
      const [rows] = await this.connection.query('SELECT Host FROM mysql.user WHERE User = ?', [user]);
      return (rows as { Host: string }[]).map((r) => r.Host);
    } catch (error) {
      throw mapError(error, this.target, this.admin, user);
    }
  }

  async close(): Promise<void> {
    await this.connection.end().catch(() => undefined);
  }
}

async function login(target: ConnectorTarget, who: Credential): Promise<Connection> {
  checkTlsMode(target, MODES);
  checkName(who.username);
  const timeout = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const options: ConnectionOptions = {
    host: target.host,
    port: target.port,
    user: who.username,
    password: who.password,
    connectTimeout: timeout,
    ssl: tlsOptions(target) as ConnectionOptions['ssl'],
    multipleStatements: false,
    // mysql_clear_password and sha256_password hand the password as it is to whoever answers:
    // only to a verified server (issue 33). Elsewhere a request for either is refused unanswered.
    enableCleartextPlugin: target.tls === 'verify',
    authPlugins: target.tls === 'verify' ? undefined : { mysql_clear_password: refusePlain('mysql_clear_password'), sha256_password: refusePlain('sha256_password') },
  };
  let connection: Connection | undefined;
  try {
    // Loaded on first use: most instances never reach a MySQL server, and every start (and
    // every test file) would otherwise load the driver.
    const { createConnection } = await import('mysql2/promise');
    connection = await createConnection(options);
    connection.on('error', () => undefined);
    // Escaped literals rely on backslash escapes: a server default of NO_BACKSLASH_ESCAPES would undo them.
    await connection.query(`SET SESSION sql_mode = REPLACE(@@SESSION.sql_mode, 'NO_BACKSLASH_ESCAPES', '')`);
    return connection;
  } catch (error) {
    await connection?.end().catch(() => undefined);
    throw mapError(error, target, who.username, who.username);
  }
}

/** An authentication plugin that answers nothing: the peer asked for the password in a form it could read. */
function refusePlain(plugin: string) {
  // A rejected promise, not a throw: mysql2 calls the plugin outside its own catch.
  return () => async () => {
    throw Object.assign(new Error(`the server asked for the password with ${plugin}`), { plainRequest: plugin });
  };
}

function mapError(error: unknown, target: ConnectorTarget, admin: string, account: string): Error {
  if (error instanceof ConnectorError) return error;
  const e = error as { errno?: number; code?: string; message?: string };
  if (e.errno === 1045 || e.errno === 1698) return new ConnectorError('auth_failed', `Login as ${account} to ${where(target)} was refused`);
  if (e.errno === 1396) return new ConnectorError('not_found', `User ${account} does not exist on ${where(target)}`);
  if (e.errno === 1227 || e.errno === 1044 || e.errno === 1142) {
    return new ConnectorError('permission_denied', `${admin} may not change the password of ${account} on ${where(target)}`);
  }
  if (e.code === 'HANDSHAKE_SSL_ERROR' || /certificate|altnames/i.test(e.message ?? '')) {
    return new ConnectorError('tls', `TLS with ${where(target)} failed: the certificate was refused (${(e.message ?? '').replace(/^Error: /, '')})`);
  }
  const plain = (error as { plainRequest?: string }).plainRequest;
  if (plain) return new ConnectorError('tls', `${where(target)} asked for the password of ${account} in clear text (${plain}); it is sent so only over TLS verify`, true);
  if (e.code === 'MYSQL_CLEAR_PASSWORD_NOT_ENABLED') {
    return new ConnectorError('tls', `${where(target)} asked for the password of ${account} in clear text (mysql_clear_password); it is sent so only over TLS verify`, true);
  }
  if (e.code === 'HANDSHAKE_NO_SSL_SUPPORT') return new ConnectorError('tls', `TLS with ${where(target)} failed: the server does not support TLS`);
  const network = networkFailure(error, target);
  if (network) return network;
  if (e.errno) return new ConnectorError('failed', `MySQL on ${where(target)} answered error ${e.errno}`);
  return error instanceof Error ? error : new Error(String(error));
}

/** A name MySQL could hold (at most 80 characters in MariaDB, 32 in MySQL; no NUL). */
function checkName(name: string): void {
  if (!name || name.length > 255 || name.includes('\0')) throw new ConnectorError('invalid', `${JSON.stringify(name)} is not a MySQL user name`);
}
