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
      const client = await login(target, { username: account, password });
      await client.end().catch(() => undefined);
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
  try {
    await client.connect();
    return client;
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
