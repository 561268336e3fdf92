import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { AUDIT_INSERT, AuditOperation, auditValues } from '@app/audit';
import { hashToken, newApiToken } from '@app/crypto';

export const INITIAL_TOKEN_FILE = 'initial-admin-token';

/** The tokens a rotation or revocation removed, and whose they were. */
export interface RevokedTokens {
  hashes: Buffer[];
  orgId: number;
  username: string;
}

interface TokenOwner {
  id: number;
  org_id: number;
  username: string;
}

async function ownerOf(m: EntityManager, orgId: number, username: string): Promise<TokenOwner> {
  // A person may hold a token too (one they made on the console): any user's tokens rotate and revoke.
  const [user] = await m.query('SELECT id, org_id, username FROM users WHERE org_id = $1 AND username_key = lower($2) FOR UPDATE', [orgId, username]);
  if (!user) throw new Error(`No user named ${username}`);
  return user;
}

/**
 * A new token for a user; every token it had stops working at once on every instance
 * (each request looks its token up). Returns the new token, shown once.
 */
export async function rotateApiToken(dataSource: DataSource, orgId: number, username: string, via: string): Promise<{ username: string; token: string; revoked: RevokedTokens }> {
  return dataSource.transaction(async (m) => {
    const user = await ownerOf(m, orgId, username);
    const token = newApiToken();
    const [rows] = (await m.query('DELETE FROM api_tokens WHERE user_id = $1 RETURNING token_hash', [user.id])) as [{ token_hash: Buffer }[], number];
    await m.query('INSERT INTO api_tokens (user_id, token_hash) VALUES ($1, $2)', [user.id, hashToken(token)]);
    await m.query(AUDIT_INSERT, auditValues({ category: 'User', operation: AuditOperation.ApiTokenRotated, orgId, target: user.username, description: `every earlier token revoked (${via})` }));
    return { username: user.username, token, revoked: { hashes: rows.map((r) => r.token_hash), orgId, username: user.username } };
  });
}

/** Revokes every token of an API user (the user stays; rotate gives it a new one). Returns how many. */
export async function revokeApiTokens(dataSource: DataSource, orgId: number, username: string, via: string): Promise<{ username: string; count: number; revoked: RevokedTokens }> {
  return dataSource.transaction(async (m) => {
    const user = await ownerOf(m, orgId, username);
    const [rows] = (await m.query('DELETE FROM api_tokens WHERE user_id = $1 RETURNING token_hash', [user.id])) as [{ token_hash: Buffer }[], number];
    await m.query(AUDIT_INSERT, auditValues({ category: 'User', operation: AuditOperation.ApiTokenRevoked, orgId, target: user.username, description: `${rows.length} token(s) revoked (${via})` }));
    return { username: user.username, count: rows.length, revoked: { hashes: rows.map((r) => r.token_hash), orgId, username: user.username } };
  });
}

/**
 * DATA_DIR/initial-admin-token holds the first administrator's token in clear, for the first
 * hour only. It is removed (audited) once it has done that job: when its token was just rotated
 * or revoked (`revokedHashes`), when another super administrator of that organisation has a
 * token, or when `force` says so (the admin command remove-initial-token). A file whose token
 * this database does not know (another installation's) is left alone. Returns why it was
 * removed, or undefined.
 */
export async function retireInitialTokenFile(
  dataSource: DataSource,
  dataDir: string,
  options: { force?: boolean; revoked?: RevokedTokens } = {},
): Promise<string | undefined> {
  const file = join(dataDir, INITIAL_TOKEN_FILE);
  if (!existsSync(file)) return undefined;
  const hash = hashToken(readFileSync(file, 'utf8').trim());
  const [found] = await dataSource.query(`SELECT u.id, u.org_id, u.username FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`, [hash]);
  const revoked = options.revoked?.hashes.some((h) => h.equals(hash)) ? options.revoked : undefined;
  const owner: { org_id: number; username: string } | undefined = found ?? (revoked && { org_id: revoked.orgId, username: revoked.username });
  let why: string | undefined;
  if (options.force) why = 'asked for by the admin command remove-initial-token';
  else if (revoked) why = 'its token was rotated or revoked';
  else if (found) {
    const [other] = await dataSource.query(
      `SELECT u.username FROM users u WHERE u.org_id = $1 AND u.id <> $2 AND u.is_super_admin AND NOT u.locked
         AND EXISTS (SELECT 1 FROM api_tokens t WHERE t.user_id = u.id) ORDER BY u.id LIMIT 1`,
      [found.org_id, found.id],
    );
    if (other) why = `another super administrator (${other.username}) has a token`;
  }
  if (!why) return undefined;
  rmSync(file, { force: true });
  await dataSource.query(
    AUDIT_INSERT,
    auditValues({ category: 'User', operation: AuditOperation.InitialTokenFileRemoved, orgId: owner?.org_id ?? null, target: owner?.username ?? '', description: `${file} removed: ${why}` }),
  );
  return why;
}
