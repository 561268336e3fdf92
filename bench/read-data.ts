import { Client } from 'pg';
import { readSeed, SeedInfo, writeSeed } from './seed-data';

/** One request of the password-read benchmark. */
export interface Target {
  token: string;
  path: string;
}

/** A database the password read is measured on, with the requests to rotate over. */
export interface DataSet {
  label: string;
  url: string;
  masterKey: string;
  targets: Target[];
  /** Which programs run on it: all, or the full server only (the empty copy). */
  fullOnly: boolean;
  drop(): Promise<void>;
}

const path = (rid: number, aid: number) => `/restapi/json/v1/resources/${rid}/accounts/${aid}/password`;

/**
 * The seeded organisation (`npm run bench -- seed`): 200 users reading accounts they own
 * (not under access control, so every program grants them), one request in twenty an
 * account of another user's that no share reaches (refused). Beside it, unless
 * BENCH_EMPTY=0, an "empty" copy: the same users, resources and accounts the requests
 * name (same ids, keys and tokens), and nothing else (no other resources, groups, shares
 * or audit rows), made once by `seed` (or here, the first time) and kept beside the seeded
 * database, so that the two full-server figures show what the data costs.
 */
export async function seededSets(): Promise<DataSet[]> {
  const seed = readSeed();
  const targets = readTargets(seed).map(({ token, path: p }) => ({ token, path: p }));
  const seeded: DataSet = { label: 'seeded', url: seed.databaseUrl, masterKey: seed.masterKey, targets, fullOnly: false, drop: async () => undefined };
  if (process.env.BENCH_EMPTY === '0') return [seeded];
  const emptyUrl = seed.emptyDatabaseUrl ?? (await makeEmptyTwin(seed));
  return [seeded, { label: 'empty', url: emptyUrl, masterKey: seed.masterKey, targets, fullOnly: true, drop: async () => undefined }];
}

function readTargets(seed: SeedInfo): (Target & { rid: number })[] {
  const allowed = seed.users.flatMap((u) => u.own.map(([rid, aid]) => ({ token: u.token, path: path(rid, aid), rid })));
  const refused = seed.users.flatMap((u) => u.refused.map(([rid, aid]) => ({ token: u.token, path: path(rid, aid), rid })));
  // BENCH_REFUSED=0 leaves the refused requests out (the allowed reads alone).
  const refusing = process.env.BENCH_REFUSED !== '0';
  return shuffle(allowed).flatMap((t, i) => (refusing && i % 19 === 18 && refused.length ? [t, refused.pop()!] : [t]));
}

/**
 * The empty twin of the seeded database (`<name>_empty`): a copy (CREATE DATABASE ...
 * TEMPLATE, which needs the seeded database idle) with everything the read requests do not
 * name removed. Recorded in seed.json.
 */
export async function makeEmptyTwin(seed: SeedInfo): Promise<string> {
  const source = new URL(seed.databaseUrl);
  const name = `${source.pathname.slice(1)}_empty`;
  const url = new URL(seed.databaseUrl);
  url.pathname = `/${name}`;
  const admin = new Client({ connectionString: seed.databaseUrl.replace(source.pathname, '/postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source.pathname.slice(1)}`);
  } finally {
    await admin.end();
  }
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  try {
    await db.query(`TRUNCATE audit, audit_seals, audit_counts, audit_checkpoints, shares, resource_group_members, resource_groups,
                      access_controls, password_history, password_requests CASCADE`);
    const keep = [...new Set(readTargets(seed).map((t) => t.rid))];
    await db.query('DELETE FROM resources WHERE NOT (id = ANY ($1::int[]))', [keep]);
    await db.query('VACUUM ANALYZE');
  } finally {
    await db.end();
  }
  writeSeed({ ...seed, emptyDatabaseUrl: url.toString() });
  return url.toString();
}

/** A fixed shuffle (the same order on every run), so that one user's reads do not come in a row. */
function shuffle<T>(items: T[]): T[] {
  let a = 20261123;
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    const j = a % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
