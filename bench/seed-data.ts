import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { hashToken, Keyring, newApiToken } from '@app/crypto';

/**
 * What `npm run bench -- seed` leaves for the other benchmarks: the database, its master key
 * and the tokens of the users the benchmarks act as. Kept in bench/results (not committed).
 */
export interface SeedInfo {
  databaseUrl: string;
  masterKey: string;
  orgId: number;
  admin: { id: number; token: string };
  /** A Password User who sees every resource through a rule-based resource-group share. */
  wide: { id: number; token: string };
  /** Password Users with the accounts they own (allowed) and accounts they may not see (refused). */
  users: { id: number; token: string; own: [number, number][]; refused: [number, number][] }[];
  /** Accounts under exclusive access control without approval, with users who may check them out. */
  checkouts: { accountId: number; resourceId: number; userIds: number[] }[];
  tokens: Record<number, string>;
  auditRows: number;
  /** The same users, and only the resources the password-read requests name (read-data.ts). */
  emptyDatabaseUrl?: string;
}

export const SEED_FILE = join(__dirname, '..', '..', 'bench', 'results', 'seed.json');

export function readSeed(): SeedInfo {
  try {
    return JSON.parse(readFileSync(SEED_FILE, 'utf8'));
  } catch {
    throw new Error(`No seeded data set (${SEED_FILE}): run \`npm run bench -- seed\` first`);
  }
}

export function writeSeed(info: SeedInfo): void {
  mkdirSync(join(SEED_FILE, '..'), { recursive: true });
  writeFileSync(SEED_FILE, JSON.stringify(info), { mode: 0o600 });
}

export const SIZES = {
  resources: 20_000,
  accountsPerResource: 3,
  users: 500,
  userGroups: 50,
  resourceGroups: 100,
};

const DEPARTMENTS = 20;
const LOCATIONS = 10;
const TYPES = ['Linux', 'Windows', 'MS SQL Server', 'Oracle DB Server', 'Cisco IOS'];

/** Users, groups, resources, accounts, resource groups, shares and access control, in bulk. */
export async function seedDirectory(ds: DataSource, keyring: Keyring): Promise<Omit<SeedInfo, 'databaseUrl' | 'masterKey' | 'auditRows'>> {
  const [org] = await ds.query(`INSERT INTO organizations (name) VALUES ('Default') RETURNING id`);
  const orgId: number = org.id;
  const tokens: Record<number, string> = {};
  const addUsers = async (names: string[], role: string, superAdmin: boolean): Promise<number[]> => {
    const rows: { id: number }[] = await ds.query(
      `INSERT INTO users (org_id, username, username_key, full_name, role, is_super_admin, is_api_user, department)
       SELECT $1, n, lower(n), n, $2, $3, true, 'dept-' || (ord % ${DEPARTMENTS}) FROM unnest($4::text[]) WITH ORDINALITY AS u(n, ord)
       ORDER BY ord RETURNING id`,
      [orgId, role, superAdmin, names],
    );
    const ids = rows.map((r) => r.id);
    const plain = ids.map(() => newApiToken());
    ids.forEach((id, i) => (tokens[id] = plain[i]));
    await ds.query('INSERT INTO api_tokens (user_id, token_hash) SELECT * FROM unnest($1::int[], $2::bytea[])', [ids, plain.map(hashToken)]);
    return ids;
  };
  const [adminId] = await addUsers(['bench-admin'], 'Administrator', true);
  const [wideId] = await addUsers(['bench-wide'], 'Password User', false);
  const names = Array.from({ length: SIZES.users - 2 }, (_, i) => `user${String(i).padStart(3, '0')}`);
  const userIds = [adminId, wideId, ...(await addUsers(names, 'Password User', false))];

  // 50 user groups of 10; every user in one group, every fifth in a second one.
  const groups: { id: number }[] = await ds.query(
    `INSERT INTO user_groups (org_id, name, name_key) SELECT $1, 'team-' || i, 'team-' || i FROM generate_series(0, ${SIZES.userGroups - 1}) i ORDER BY i RETURNING id`,
    [orgId],
  );
  const groupIds = groups.map((g) => g.id);
  const memberGroup: number[] = [];
  const memberUser: number[] = [];
  userIds.forEach((uid, i) => {
    memberGroup.push(groupIds[i % groupIds.length]);
    memberUser.push(uid);
    if (i % 5 === 0) {
      memberGroup.push(groupIds[(i + 7) % groupIds.length]);
      memberUser.push(uid);
    }
  });
  await ds.query('INSERT INTO user_group_members (group_id, user_id) SELECT * FROM unnest($1::int[], $2::int[]) ON CONFLICT DO NOTHING', [
    memberGroup,
    memberUser,
  ]);
  const [allOps] = await ds.query(`INSERT INTO user_groups (org_id, name, name_key) VALUES ($1, 'all-ops', 'all-ops') RETURNING id`, [orgId]);
  await ds.query('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2)', [allOps.id, wideId]);

  // 20,000 resources owned round-robin by the Password Users (about 40 each).
  const owners = userIds.slice(2);
  await ds.query(
    `INSERT INTO resources (org_id, owner_id, name, name_key, type, dns_name, department, location, description)
     SELECT $1, ($2::int[])[1 + i % cardinality($2::int[])], 'srv-' || lpad(i::text, 5, '0'), 'srv-' || lpad(i::text, 5, '0'),
            ($3::text[])[1 + i % cardinality($3::text[])], 'srv-' || i || '.corp.example', 'dept-' || (i % ${DEPARTMENTS}),
            'site-' || (i % ${LOCATIONS}), 'seeded resource ' || i
     FROM generate_series(0, ${SIZES.resources - 1}) i ORDER BY i`,
    [orgId, owners, TYPES],
  );
  const resources: { id: number; owner_id: number }[] = await ds.query('SELECT id, owner_id FROM resources WHERE org_id = $1 ORDER BY id', [orgId]);

  // 3 accounts each; every password sealed by the keyring so reads decrypt.
  const accountNames = ['root', 'admin', 'svc-backup'];
  for (let start = 0; start < resources.length; start += 2000) {
    const slice = resources.slice(start, start + 2000);
    const rids: number[] = [];
    const anames: string[] = [];
    const blobs: Buffer[] = [];
    for (const r of slice) {
      for (const name of accountNames.slice(0, SIZES.accountsPerResource)) {
        rids.push(r.id);
        anames.push(name);
        blobs.push(keyring.seal(`Seeded-${r.id}-${name}-Pw!`, 'accounts.password'));
      }
    }
    const inserted: { id: number; resource_id: number; name: string }[] = await ds.query(
      // With the verdict the server stores when it sets such a password (Strong, compliant):
      // without one, the vault's next start would open every seeded password (ComplianceBackfill).
      `INSERT INTO accounts (resource_id, name, name_key, password, compliance_policy, compliance_problems)
       SELECT r, n, n, p, 'Strong', '' FROM unnest($1::int[], $2::text[], $3::bytea[]) AS v(r, n, p)
       RETURNING id, resource_id, name`,
      [rids, anames, blobs],
    );
    // Fingerprints as a password change keeps them (bound to the account id), so the change
    // benchmark measures the usual change from its first request.
    await ds.query('UPDATE accounts a SET password_fingerprint = f.fp FROM unnest($1::int[], $2::bytea[]) AS f(id, fp) WHERE a.id = f.id', [
      inserted.map((a) => a.id),
      inserted.map((a) => keyring.fingerprint(`Seeded-${a.resource_id}-${a.name}-Pw!`, 'accounts.password', a.id)),
    ]);
  }
  const accounts: { id: number; resource_id: number }[] = await ds.query(
    'SELECT a.id, a.resource_id FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.org_id = $1 ORDER BY a.id',
    [orgId],
  );

  // 100 resource groups: 50 static lists of 200 resources, 50 rule-based (department / location / type rules).
  await ds.query(
    `INSERT INTO resource_groups (org_id, name, name_key, kind, match_mode, criteria)
     SELECT $1, 'static-' || i, 'static-' || i, 'static', 'and', '[]'::jsonb FROM generate_series(0, 49) i`,
    [orgId],
  );
  await ds.query(
    `INSERT INTO resource_groups (org_id, name, name_key, kind, match_mode, criteria)
     SELECT $1, 'rule-' || i, 'rule-' || i, 'dynamic', CASE WHEN i % 2 = 0 THEN 'and' ELSE 'or' END,
       CASE WHEN i % 3 = 0 THEN jsonb_build_array(jsonb_build_object('field', 'DEPARTMENT', 'operator', 'EQUALS', 'value', 'dept-' || (i % ${DEPARTMENTS})))
            WHEN i % 3 = 1 THEN jsonb_build_array(jsonb_build_object('field', 'LOCATION', 'operator', 'EQUALS', 'value', 'site-' || (i % ${LOCATIONS})),
                                                  jsonb_build_object('field', 'RESOURCETYPE', 'operator', 'EQUALS', 'value', 'Linux'))
            ELSE jsonb_build_array(jsonb_build_object('field', 'RESOURCENAME', 'operator', 'STARTS WITH', 'value', 'srv-' || lpad((i % 20)::text, 2, '0'))) END
     FROM generate_series(0, 48) i`,
    [orgId],
  );
  // The wide user's group: every resource, by rule.
  await ds.query(
    `INSERT INTO resource_groups (org_id, name, name_key, kind, match_mode, criteria)
     VALUES ($1, 'all-servers', 'all-servers', 'dynamic', 'and', '[{"field":"RESOURCENAME","operator":"STARTS WITH","value":"srv-"}]')`,
    [orgId],
  );
  await ds.query(
    `INSERT INTO resource_group_members (group_id, resource_id)
     SELECT g.id, r.id FROM resource_groups g JOIN resources r ON r.org_id = g.org_id
     WHERE g.kind = 'static' AND g.org_id = $1 AND r.id % 50 = substr(g.name, 8)::int % 50 AND (r.id / 50) % 2 = 0`,
    [orgId],
  );

  // Shares at the three levels. Resource level: every 10th resource to a user, every 10th (offset 5) to a group.
  await ds.query(
    `INSERT INTO shares (resource_id, user_id, access_type)
     SELECT r.id, ($2::int[])[1 + (r.id * 7) % cardinality($2::int[])], CASE WHEN r.id % 3 = 0 THEN 'modify' ELSE 'view' END
     FROM resources r WHERE r.org_id = $1 AND r.id % 10 = 0`,
    [orgId, owners],
  );
  await ds.query(
    `INSERT INTO shares (resource_id, user_group_id, access_type)
     SELECT r.id, ($2::int[])[1 + r.id % cardinality($2::int[])], 'view' FROM resources r WHERE r.org_id = $1 AND r.id % 10 = 5`,
    [orgId, groupIds],
  );
  // Account level: every 7th account to a user, every 11th to a group.
  await ds.query(
    `INSERT INTO shares (resource_id, account_id, user_id, access_type)
     SELECT a.resource_id, a.id, ($2::int[])[1 + (a.id * 13) % cardinality($2::int[])], 'view'
     FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.org_id = $1 AND a.id % 7 = 0`,
    [orgId, owners],
  );
  await ds.query(
    `INSERT INTO shares (resource_id, account_id, user_group_id, access_type)
     SELECT a.resource_id, a.id, ($2::int[])[1 + a.id % cardinality($2::int[])], 'modify'
     FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.org_id = $1 AND a.id % 11 = 0`,
    [orgId, groupIds],
  );
  // Resource-group level: each group to a user group, every other one also to a user.
  await ds.query(
    `INSERT INTO shares (resource_group_id, user_group_id, access_type)
     SELECT g.id, ($2::int[])[1 + g.id % cardinality($2::int[])], 'view' FROM resource_groups g WHERE g.org_id = $1 AND g.name <> 'all-servers'`,
    [orgId, groupIds],
  );
  await ds.query(
    `INSERT INTO shares (resource_group_id, user_id, access_type)
     SELECT g.id, ($2::int[])[1 + (g.id * 31) % cardinality($2::int[])], 'view' FROM resource_groups g WHERE g.org_id = $1 AND g.id % 2 = 0 AND g.name <> 'all-servers'`,
    [orgId, owners],
  );
  await ds.query(
    `INSERT INTO shares (resource_group_id, user_group_id, access_type) SELECT id, $2, 'view' FROM resource_groups WHERE org_id = $1 AND name = 'all-servers'`,
    [orgId, allOps.id],
  );

  // 20% of accounts under access control: one in ten needing approval, one in ten exclusive check-out without approval.
  await ds.query(
    `INSERT INTO access_controls (resource_id, account_id, approval_required, exclusive, checkout_minutes)
     SELECT a.resource_id, a.id, a.id % 10 = 0, true, 30 FROM accounts a JOIN resources r ON r.id = a.resource_id
     WHERE r.org_id = $1 AND a.id % 10 IN (0, 5)`,
    [orgId],
  );

  const ownerOf = new Map(resources.map((r) => [r.id, r.owner_id]));
  const sample = owners.slice(0, 200);
  const users = sample.map((uid, i) => {
    const own = accounts.filter((a) => ownerOf.get(a.resource_id) === uid && a.id % 10 !== 0 && a.id % 10 !== 5).slice(0, 10);
    // Accounts of another user's resources that carry no share at all: refused (a share could reach them through a group).
    const other = sample[(i + 100) % sample.length];
    const refused = accounts.filter((a) => ownerOf.get(a.resource_id) === other && a.resource_id % 10 !== 0 && a.resource_id % 10 !== 5).slice(0, 2);
    return { id: uid, token: tokens[uid], own: own.map((a) => [a.resource_id, a.id] as [number, number]), refused: refused.map((a) => [a.resource_id, a.id] as [number, number]) };
  });
  // Check-out candidates: exclusive, no approval; every user of the account's owner's group may use it (shared to the group).
  const checkouts = accounts
    .filter((a) => a.id % 10 === 5)
    .slice(0, 50)
    .map((a) => ({ accountId: a.id, resourceId: a.resource_id, userIds: [] as number[] }));
  for (const [i, c] of checkouts.entries()) {
    const group = groupIds[i % groupIds.length];
    await ds.query(`INSERT INTO shares (resource_id, account_id, user_group_id, access_type) VALUES ($1, $2, $3, 'view')`, [c.resourceId, c.accountId, group]);
    c.userIds = userIds.filter((_, j) => j >= 2 && j % groupIds.length === i % groupIds.length).slice(0, 4);
  }
  return { orgId, admin: { id: adminId, token: tokens[adminId] }, wide: { id: wideId, token: tokens[wideId] }, users, checkouts, tokens };
}

const OPERATIONS: [string, string][] = [
  ['Resource', 'Password Retrieved'],
  ['Resource', 'Password Retrieved'],
  ['Resource', 'Password Retrieved'],
  ['Pki', 'Certificate Created'],
  ['Resource', 'Password Changed'],
  ['Resource', 'Password Checked Out'],
  ['Resource', 'Resource Modified'],
  ['User', 'Authentication Failed'],
];

/**
 * `rows` audit rows spread evenly over the last `days` days, oldest first (ids grow with
 * time, as they do live), in statements of 250,000 rows generated by the server.
 */
export async function seedAudit(ds: DataSource, orgId: number, rows: number, days: number, log: (s: string) => void): Promise<void> {
  const ops = OPERATIONS.map((o) => o[1]);
  const cats = OPERATIONS.map((o) => o[0]);
  const CHUNK = 250_000;
  for (let start = 0; start < rows; start += CHUNK) {
    const n = Math.min(CHUNK, rows - start);
    await ds.query(
      `INSERT INTO audit (id, created_at, org_id, category, operation, outcome, actor_id, actor_name, ip, client, resource_id,
         resource_name, account_id, account_name, reason)
       SELECT nextval('audit_id_seq'), now() - $4::int * interval '1 day' + (i * ($4::int * interval '1 day') / $5::bigint),
         $1, ($2::text[])[1 + i % 8], ($3::text[])[1 + i % 8], CASE WHEN i % 97 = 0 THEN 'Failed' ELSE 'Success' END,
         NULL, 'user' || lpad((i % 498)::text, 3, '0'), '10.1.' || (i % 200) || '.' || (i % 250), 'curl/8.5',
         NULL, 'srv-' || lpad((i % 20000)::text, 5, '0'), NULL, 'root', CASE WHEN i % 5 = 0 THEN 'ticket ' || i ELSE '' END
       FROM generate_series($6::bigint, $6::bigint + $7::bigint - 1) i ORDER BY i`,
      [orgId, cats, ops, days, rows, start, n],
    );
    log(`  audit rows: ${start + n}`);
  }
}
