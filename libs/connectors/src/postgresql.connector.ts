import { Client, ClientConfig } from 'pg';
import { AdminSession, Connector, ConnectorError, ConnectorTarget, Credential, DEFAULT_TIMEOUT_MS, networkFailure, where } from './connector';
import { scramVerifier } from './postgresql-scram';
import { checkTlsMode, tlsOptions } from './tls';

const MODES = ['verify', 'require', 'off'] as const;

/**
 * PostgreSQL: `ALTER ROLE ... PASSWORD` with the role as a quoted identifier. A printable
 * ASCII password is sent as its SCRAM-SHA-256 verifier, so the clear text never reaches the
 * server's statement log. The administrator needs SUPERUSER or CREATEROLE (from 16, with
 * ADMIN OPTION on the roles it manages).
 */
export const postgresqlConnector: Connector = {
  kind: 'postgresql',
  defaultPort: 5432,
  tlsModes: MODES,

  async connect(target, admin) {
    const client = await login(target, admin);
    return new PostgresqlSession(client, target, admin.username);
  },

  async verify(target, account, password) {
    try {
      const { client, askedForPassword } = await loginWatched(target, { username: account, password });
      await client.end().catch(() => undefined);
      // A server that lets the role in without asking (trust) proves nothing about the password.
      if (!askedForPassword) throw new ConnectorError('failed', `${where(target)} let ${account} in without asking for a password (trust); the stored password cannot be verified there`);
      return true;
    } catch (error) {
      if (error instanceof ConnectorError && error.reason === 'auth_failed') return false;
      // The password was accepted; only the database is closed to the role.
      if (error instanceof ConnectorError && error.reason === 'permission_denied') return true;
      throw error;
    }
  },
};

class PostgresqlSession implements AdminSession {
  constructor(
    private readonly client: Client,
    private readonly target: ConnectorTarget,
    private readonly admin: string,
  ) {}

  async checkPrivilege(): Promise<void> {
    const { rows } = await this.client.query('SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user');
    if (!rows[0]?.rolsuper && !rows[0]?.rolcreaterole) {
      throw new ConnectorError('permission_denied', `${this.admin} on ${where(this.target)} is neither a superuser nor allowed to create roles (CREATEROLE)`);
    }
  }

  async changePassword(account: string, newPassword: string): Promise<void> {
    checkName(account);
    const secret = /^[\x20-\x7e]+$/.test(newPassword) ? scramVerifier(newPassword) : newPassword;
    try {
      await this.client.query(`ALTER ROLE ${this.client.escapeIdentifier(account)} PASSWORD ${this.client.escapeLiteral(secret)}`);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === '42704') throw new ConnectorError('not_found', `Role ${account} does not exist on ${where(this.target)}`);
      if (code === '42501') throw new ConnectorError('permission_denied', `${this.admin} may not change the password of ${account} on ${where(this.target)}`);
      throw mapError(error, this.target, this.admin);
    }
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

async function login(target: ConnectorTarget, who: Credential): Promise<Client> {
  return (await loginWatched(target, who)).client;
}

/** pg's handlers for the server's authentication requests (internal, stable across pg 8). */
interface AuthHandlers {
  _handleAuthCleartextPassword(msg: unknown): void;
  _handleAuthMD5Password(msg: unknown): void;
  _handleAuthSASL(msg: unknown): void;
  connection: { emit(event: 'error', error: Error): void };
}

/**
 * Logs in, following only the authentication a hostile or misconfigured peer cannot turn into
 * the password: SCRAM always; the clear text and MD5 (whose hash is a replayable password)
 * only over TLS `verify`. Says whether the server asked for the password at all.
 */
async function loginWatched(target: ConnectorTarget, who: Credential): Promise<{ client: Client; askedForPassword: boolean }> {
  checkTlsMode(target, MODES);
  checkName(who.username);
  const timeout = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const config: ClientConfig = {
    host: target.host,
    port: target.port,
    user: who.username,
    password: who.password,
    database: target.database || 'postgres',
    ssl: tlsOptions(target) ?? false,
    connectionTimeoutMillis: timeout,
    query_timeout: timeout,
    application_name: 'credential-vault',
  };
  const client = new Client(config);
  // An error after connecting (the server going away) must not crash the process.
  client.on('error', () => undefined);
  let askedForPassword = false;
  const handlers = client as unknown as AuthHandlers;
  const sasl = handlers._handleAuthSASL;
  handlers._handleAuthSASL = function (msg) {
    askedForPassword = true;
    sasl.call(this, msg);
  };
  if (target.tls !== 'verify') {
    const refuse = (how: string) => () =>
      handlers.connection.emit(
        'error',
        new ConnectorError('tls', `${where(target)} asked for the password of ${who.username} ${how}; it is sent only with SCRAM, or over TLS verify`, true),
      );
    handlers._handleAuthCleartextPassword = refuse('in clear text');
    handlers._handleAuthMD5Password = refuse('as an MD5 hash');
  } else {
    for (const name of ['_handleAuthCleartextPassword', '_handleAuthMD5Password'] as const) {
      const original = handlers[name];
      handlers[name] = function (msg) {
        askedForPassword = true;
        original.call(this, msg);
      };
    }
  }
  try {
    await client.connect();
    return { client, askedForPassword };
  } catch (error) {
    await client.end().catch(() => undefined);
    throw mapError(error, target, who.username);
  }
}

function mapError(error: unknown, target: ConnectorTarget, user: string): Error {
  const e = error as { code?: string; message?: string };
  if (e.code === '28P01' || e.code === '28000') return new ConnectorError('auth_failed', `Login as ${user} to ${where(target)} was refused`);
  if (e.code === '42501' || e.code === '3D000') {
    return new ConnectorError('permission_denied', `Login as ${user} to ${where(target)} was accepted, but ${target.database || 'postgres'} is not open to it`);
  }
  if (/does not support SSL/i.test(e.message ?? '')) return new ConnectorError('tls', `TLS with ${where(target)} failed: the server does not support TLS`);
  if (/timeout/i.test(e.message ?? '')) return new ConnectorError('timeout', `Cannot reach ${where(target)}: timed out`);
  if (/Connection terminated unexpectedly/i.test(e.message ?? '')) return new ConnectorError('unreachable', `Cannot reach ${where(target)}: connection closed`);
  const network = networkFailure(error, target);
  if (network) return network;
  if (e.code) return new ConnectorError('failed', `PostgreSQL on ${where(target)} answered ${e.code}`);
  return error instanceof Error ? error : new Error(String(error));
}

/** A role name PostgreSQL could hold (it truncates at 63 bytes; NUL cannot be sent). */
function checkName(name: string): void {
  if (!name || Buffer.byteLength(name) > 63 || name.includes('\0')) throw new ConnectorError('invalid', `${JSON.stringify(name)} is not a PostgreSQL role name`);
}
