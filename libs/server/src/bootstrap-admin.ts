import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * First start only: the default organisation and the administrator `admin`, whose token
 * is printed once and written to DATA_DIR/initial-admin-token (0600). Safe when several
 * instances start together (advisory lock).
 */
export async function ensureFirstAdmin(dataSource: DataSource, dataDir: string): Promise<string | undefined> {
  const token = await dataSource.transaction(async (m) => {
    await m.query('SELECT pg_advisory_xact_lock(727265652)');
    const [{ n }] = await m.query('SELECT count(*)::int AS n FROM organizations');
    if (n > 0) return undefined;
    const [org] = await m.query('INSERT INTO organizations (name) VALUES ($1) RETURNING id', [DEFAULT_ORG]);
    const admin = { orgId: org.id, username: 'admin', role: 'Administrator', superAdmin: true, fullName: 'Administrator' };
    return (await createApiUserIn(m, admin)).token;
  });
  if (!token) return undefined;
  const file = join(dataDir, 'initial-admin-token');
  if (!existsSync(file)) writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}
