import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hash } from 'bcrypt';
import { DataSource, EntityManager } from 'typeorm';
import { AUDIT_INSERT, auditValues } from '@app/audit';
import { hashToken, newApiToken } from '@app/crypto';

export const DEFAULT_ORG = 'Default';

export interface CreatedApiUser {
  userId: number;
  token: string;
}

/**
 * Creates an API user with a fresh token, in one transaction with its audit row.
 * The token is returned once; only its SHA-256 is stored.
 */
export interface NewApiUser {
  orgId: number;
  username: string;
  role: string;
  superAdmin?: boolean;
  allowedHosts?: string;
  fullName?: string;
}

export function createApiUser(dataSource: DataSource, input: NewApiUser, actorName = 'system'): Promise<CreatedApiUser> {
  return dataSource.transaction((m) => createApiUserIn(m, input, actorName));
}

export async function createApiUserIn(m: EntityManager, input: NewApiUser, actorName = 'system'): Promise<CreatedApiUser> {
  const made = await insertApiUser(m, input);
  await m.query(
    AUDIT_INSERT,
    auditValues({
      category: 'User',
      operation: 'User Added',
      orgId: input.orgId,
      target: input.username,
      description: `API user ${input.username} (${input.role}) created by ${actorName}`,
    }),
  );
  return made;
}

/**
 * The user row and its token, without an audit row: for a caller that writes its own,
 * naming who created the user (the API's CREATE_USER), so that a creation is one row.
 */
export async function insertApiUser(m: EntityManager, input: NewApiUser): Promise<CreatedApiUser> {
  const token = newApiToken();
  const [user] = await m.query(
    `INSERT INTO users (org_id, username, username_key, full_name, role, is_super_admin, is_api_user, allowed_hosts)
     VALUES ($1, $2, lower($2), $3, $4, $5, true, $6) RETURNING id`,
    [input.orgId, input.username, input.fullName ?? input.username, input.role, input.superAdmin ?? false, input.allowedHosts ?? ''],
  );
  await m.query('INSERT INTO api_tokens (user_id, token_hash) VALUES ($1, $2)', [user.id, hashToken(token)]);
  return { userId: user.id, token };
}

export const INITIAL_PASSWORD_FILE = 'initial-admin-password';

/** What the first start made: the token for programs, the login password for the console. */
export interface FirstAdmin {
  token: string;
  password: string;
}

/**
 * First start only: the default organisation and the administrator `admin`. It has an API token
 * (for scripts) and a console login password (for a person, who must add TOTP at the first
 * sign-in), each printed once and written to DATA_DIR/initial-admin-token and
 * DATA_DIR/initial-admin-password (0600). Safe when several instances start together
 * (advisory lock).
 */
export async function ensureFirstAdmin(dataSource: DataSource, dataDir: string): Promise<FirstAdmin | undefined> {
  // Every later start ends here, without the bcrypt hash below (a quarter of a CPU-second);
  // the check under the lock still decides when instances start together on an empty database.
  const [{ started }] = await dataSource.query('SELECT EXISTS (SELECT 1 FROM organizations) AS started');
  if (started) return undefined;
  const password = randomBytes(15).toString('base64url');
  const passwordHash = await hash(password, 12);
  const token = await dataSource.transaction(async (m) => {
    await m.query('SELECT pg_advisory_xact_lock(727265652)');
    const [{ n }] = await m.query('SELECT count(*)::int AS n FROM organizations');
    if (n > 0) return undefined;
    const [org] = await m.query('INSERT INTO organizations (name) VALUES ($1) RETURNING id', [DEFAULT_ORG]);
    const admin = { orgId: org.id, username: 'admin', role: 'Administrator', superAdmin: true, fullName: 'Administrator' };
    const made = await createApiUserIn(m, admin);
    await m.query('UPDATE users SET password_hash = $2 WHERE id = $1', [made.userId, passwordHash]);
    return made.token;
  });
  if (!token) return undefined;
  writeOnce(join(dataDir, 'initial-admin-token'), token);
  writeOnce(join(dataDir, INITIAL_PASSWORD_FILE), password);
  return { token, password };
}

function writeOnce(file: string, secret: string): void {
  if (!existsSync(file)) writeFileSync(file, secret + '\n', { mode: 0o600 });
}
