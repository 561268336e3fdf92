import 'reflect-metadata';
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { hashToken, Keyring, newApiToken, parseKeyMaterial } from '@app/crypto';
import { helpdeskBlockedSql, resourceVisibleSql, underAccessControlSql } from '@app/gate';
import { connectClient, createDataSource, parseDatabaseUrl, runMigrations } from '@app/persistence';
import { DataSet, seededSets, Target } from './read-data';
import { benchDatabase, roundsRatio, startServer, stopServer } from './support';

// The password read through the full server (TLS off) beside two minimal node:http + pg
// programs doing the same read on the same data: three prepared statements (plain) and one
// statement with the simplest correct check (one-statement). All three in one run, one
// after the other, with requests rotating over many (user, account) pairs.
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Resources of the generated data set (3 accounts each); 0 reads one owned account, as before. */
const RESOURCES = Number(process.env.BENCH_RESOURCES ?? 2000);
/** Which programs to run (comma-separated names), default all three. */
const ONLY = process.env.BENCH_PROGRAMS?.split(',');
/** BENCH_KEEP_DB=1 keeps the generated database (for EXPLAIN and pgbench) and prints its URL. */
const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

const PROGRAMS: [string, string][] = [
  ['plain (3 statements)', 'plain-server.js'],
  ['one statement', 'one-statement-server.js'],
  ['full server', 'full-server.js'],
];

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  refused: number;
  /** CPU milliseconds per request of the program's process and of its PostgreSQL backends. */
  nodeCpu: number;
  pgCpu: number;
  rssMb: number;
}

/**
 * BENCH_ROUNDS=n runs every program n times, in turn (round 1: each program, round 2: each
 * again...), and reports each ratio per round and its median: on a shared machine the load
 * changes within minutes, and programs measured side by side share it.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));

export async function main(): Promise<Figures[]> {
  const sets = process.env.BENCH_DATA === 'seed' ? await seededSets() : [await generatedSet()];
  const rounds: Figures[][] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const results: Figures[] = [];
      for (const set of sets) results.push(...(await measure(set, sets.length > 1 ? ` [${set.label}]` : '')));
      rounds.push(results);
    }
  } finally {
    for (const set of sets) await set.drop();
  }
  print(rounds, sets);
  return rounds.flat();
}

/** The organisation generated here (RESOURCES resources), in a scratch database. */
async function generatedSet(): Promise<DataSet> {
  const db = await benchDatabase();
  const masterKey = randomBytes(32).toString('hex');
  await runMigrations(db.url);
  const ds = createDataSource(db.url, 2);
  await ds.initialize();
  const started = Date.now();
  const targets = await seed(ds, masterKey);
  console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await ds.destroy();
  const label = RESOURCES ? `${RESOURCES} resources × 3 accounts, ${targets.length} rotating (user, account) pairs, ~5% refused` : 'one owned account';
  return {
    label,
    url: db.url,
    masterKey,
    targets,
    fullOnly: false,
    drop: async () => (process.env.BENCH_KEEP_DB ? console.log(`kept database ${db.url}`) : db.drop()),
  };
}

/** Each program on one data set, one after the other. */
async function measure(set: DataSet, suffix: string): Promise<Figures[]> {
  const watcher = await connectClient(set.url);
  // With several hosts in DATABASE_URL (an HA pair), the full server runs twice: on that URL
  // and on its leader's URL alone, to show what choosing the host costs. The two minimal
  // programs take one host (pg parses no more).
  const single = await leaderUrl(set.url, watcher);
  const programs: [string, string, string][] = PROGRAMS.filter(([n, s]) => (!ONLY || ONLY.some((o) => s.startsWith(o) || n === o)) && (!set.fullOnly || s === 'full-server.js')).map(
    ([n, s]) => [n, s, s === 'full-server.js' ? set.url : single],
  );
  const results: Figures[] = [];
  try {
    if (single !== set.url && programs.some(([, s]) => s === 'full-server.js')) results.push(...(await sideBySide(set, single, watcher)));
    for (const [name, script, url] of programs) {
      const { port, child } = await startServer(script, { DATABASE_URL: url, MASTER_KEY: set.masterKey, DB_POOL_SIZE: '20' });
      try {
        const base = `http://127.0.0.1:${port}`;
        await load(base, set.targets, 2); // warm-up: JIT, prepared statements, pool
        if (script === 'full-server.js') await sealed(watcher);
        const before = await cpuSample(watcher, child.pid!);
        const figures = await load(base, set.targets, SECONDS);
        const after = await cpuSample(watcher, child.pid!);
        const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
        results.push({
          name: name + suffix,
          ...figures,
          nodeCpu: ((after.node - before.node) * CLOCK_TICK_MS) / figures.total,
          pgCpu: (cpuDelta(before.pg, after.pg) * CLOCK_TICK_MS) / figures.total,
          rssMb,
        });
      } finally {
        await stopServer(child);
      }
    }
  } finally {
    await watcher.end();
  }
  return results;
}

const ONE_HOST = 'one host: full server';
const TWO_HOSTS = 'two hosts: full server';

/**
 * The full server through the multi-host URL and through its leader's URL alone, both at
 * once, half the connections each: on a shared machine whose load changes by the minute, two
 * programs measured at the same moment share it, and neither is favoured (each serves as many
 * requests as its own cost allows).
 */
async function sideBySide(set: DataSet, single: string, watcher: Client): Promise<Figures[]> {
  const env = (url: string) => ({ DATABASE_URL: url, MASTER_KEY: set.masterKey, DB_POOL_SIZE: '20' });
  const servers = [
    { name: TWO_HOSTS, ...(await startServer('full-server.js', env(set.url))) },
    { name: ONE_HOST, ...(await startServer('full-server.js', env(single))) },
  ];
  try {
    const half = Math.max(1, Math.floor(CONNECTIONS / 2));
    await Promise.all(servers.map((s) => load(`http://127.0.0.1:${s.port}`, set.targets, 2, half)));
    await sealed(watcher);
    const before = await Promise.all(servers.map((s) => cpuSample(watcher, s.child.pid!)));
    const figures = await Promise.all(servers.map((s) => load(`http://127.0.0.1:${s.port}`, set.targets, SECONDS, half)));
    const after = await Promise.all(servers.map((s) => cpuSample(watcher, s.child.pid!)));
    const total = figures.reduce((n, f) => n + f.total, 0);
    return servers.map((s, i) => ({
      name: s.name,
      ...figures[i],
      nodeCpu: ((after[i].node - before[i].node) * CLOCK_TICK_MS) / figures[i].total,
      // Both servers' backends are on one server: their CPU is shared out per request of both.
      pgCpu: (cpuDelta(before[0].pg, after[1].pg) * CLOCK_TICK_MS) / total,
      rssMb: Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
    }));
  } finally {
    for (const s of servers) await stopServer(s.child);
  }
}

/** The single-host URL of the host a multi-host URL's connections go to (the URL itself otherwise). */
async function leaderUrl(url: string, watcher: Client): Promise<string> {
  const { hosts } = parseDatabaseUrl(url);
  if (hosts.length === 1) return url;
  const port = Number((await watcher.query('SELECT inet_server_port() AS p')).rows[0].p);
  return hosts.find((h) => h.port === port)?.url ?? hosts[0].url;
}

/**
 * A modest organisation (RESOURCES resources × 3 accounts, 100 users, user groups,
 * static and rule-based resource groups, shares at all levels to users, groups and
 * resource groups, 20% of accounts under access control) and the requests to rotate
 * over: allowed reads (half by ownership, half by a direct share, so that every program
 * grants them) and about 5% refused ones (accounts the user cannot see).
 */
async function seed(ds: DataSource, masterKey: string): Promise<Target[]> {
  const keyring = new Keyring(ds, parseKeyMaterial(masterKey));
  await keyring.load();
  const [org] = await ds.query(`INSERT INTO organizations (name) VALUES ('Default') RETURNING id`);
  const [other] = await ds.query(`INSERT INTO organizations (name) VALUES ('Other') RETURNING id`);
  const roles = ['Password Administrator', 'Password User', 'Privileged Administrator'];
  const users: { id: number; org_id: number }[] = await ds.query(
    `INSERT INTO users (org_id, username, username_key, full_name, role, is_api_user)
     SELECT CASE WHEN i <= 95 THEN $1::int ELSE $2::int END, 'user' || i, 'user' || i, 'User ' || i, ($3::text[])[1 + i % 3], true
     FROM generate_series(1, 100) i RETURNING id, org_id`,
    [org.id, other.id, roles],
  );
  const tokens = new Map<number, string>(users.map((u) => [u.id, newApiToken()]));
  await ds.query('INSERT INTO api_tokens (user_id, token_hash) SELECT * FROM unnest($1::int[], $2::bytea[])', [
    [...tokens.keys()],
    [...tokens.values()].map(hashToken),
  ]);
  if (RESOURCES === 0) return singleAccount(ds, keyring, org.id, users[0].id, tokens.get(users[0].id)!);
  const blobs = [0, 1, 2, 3].map((i) => keyring.seal(`Bench-Password-${i}!`, 'accounts.password'));
  await ds.query(
    `INSERT INTO resources (org_id, owner_id, name, name_key, type, department, dns_name)
     SELECT CASE WHEN i % 20 = 0 THEN $2::int ELSE $1::int END, u.id, 'srv-' || i, 'srv-' || i, (ARRAY['Linux','Windows','MySQL'])[1 + i % 3],
            'dept' || (i % 10), 'srv-' || i || '.example.test'
     FROM generate_series(1, $3::int) i
     JOIN LATERAL (SELECT id FROM users WHERE org_id = CASE WHEN i % 20 = 0 THEN $2::int ELSE $1::int END ORDER BY (id * 7919 + i) % 101 LIMIT 1) u ON true`,
    [org.id, other.id, RESOURCES],
  );
  await ds.query(
    // With the verdict the server stores for these passwords (Strong, compliant), so that no start opens them all.
    `INSERT INTO accounts (resource_id, name, name_key, password, compliance_policy, compliance_problems)
     SELECT r.id, n, n, ($1::bytea[])[1 + (r.id + k) % 4], 'Strong', '' FROM resources r, unnest(ARRAY['root','admin','svc']) WITH ORDINALITY x(n, k)`,
    [blobs],
  );
  await ds.query(
    `INSERT INTO user_groups (org_id, name, name_key) SELECT $1, 'team' || g, 'team' || g FROM generate_series(1, 10) g;
     INSERT INTO user_group_members (group_id, user_id)
       SELECT g.id, u.id FROM user_groups g JOIN users u ON u.org_id = g.org_id AND (u.id + g.id) % 10 = 0;
     INSERT INTO resource_groups (org_id, name, name_key, kind, match_mode, criteria, no_helpdesk_retrieval)
       SELECT $1, 'rg' || g, 'rg' || g, CASE WHEN g <= 10 THEN 'static' ELSE 'dynamic' END, CASE WHEN g % 2 = 0 THEN 'or' ELSE 'and' END,
              CASE WHEN g <= 10 THEN '[]'::jsonb ELSE jsonb_build_array(
                jsonb_build_object('field', 'DEPARTMENT', 'operator', 'EQUALS', 'value', 'dept' || (g % 10)),
                jsonb_build_object('field', 'RESOURCENAME', 'operator', 'CONTAINS', 'value', (g % 10)::text)) END,
              g IN (3, 14)
       FROM generate_series(1, 20) g;
     INSERT INTO resource_group_members (group_id, resource_id)
       SELECT g.id, r.id FROM resource_groups g JOIN resources r ON r.org_id = g.org_id AND (r.id + g.id) % 40 = 0 WHERE g.kind = 'static';
     INSERT INTO shares (resource_id, user_id, access_type)
       SELECT r.id, u.id, (ARRAY['view','modify','fullaccess'])[1 + r.id % 3] FROM resources r
       JOIN LATERAL (SELECT id FROM users WHERE org_id = r.org_id AND id <> r.owner_id ORDER BY (id * 31 + r.id) % 97 LIMIT 1) u ON true;
     INSERT INTO shares (resource_id, account_id, user_id, access_type)
       SELECT a.resource_id, a.id, u.id, 'view' FROM accounts a JOIN resources r ON r.id = a.resource_id
       JOIN LATERAL (SELECT id FROM users WHERE org_id = r.org_id AND id <> r.owner_id ORDER BY (id * 17 + a.id) % 89 LIMIT 1) u ON true
       WHERE a.id % 3 = 0;
     INSERT INTO shares (resource_id, user_group_id, access_type)
       SELECT r.id, g.id, 'view' FROM resources r JOIN user_groups g ON g.org_id = r.org_id AND (r.id + g.id) % 40 = 0;
     INSERT INTO shares (resource_group_id, user_id, access_type)
       SELECT g.id, u.id, 'view' FROM resource_groups g JOIN users u ON u.org_id = g.org_id AND (u.id + g.id) % 30 = 0;
     INSERT INTO shares (resource_group_id, user_group_id, access_type)
       SELECT g.id, ug.id, 'modify' FROM resource_groups g JOIN user_groups ug ON ug.org_id = g.org_id AND (ug.id + g.id) % 5 = 0;
     INSERT INTO access_controls (resource_id, account_id) SELECT resource_id, id FROM accounts WHERE id % 5 = 0;
     ANALYZE`.replace(/\$1/g, String(Number(org.id))),
  );
  const visible = resourceVisibleSql('r', 'u.org_id', 'u.id', 'u.is_super_admin', { account: 'a' });
  // Candidates first (owners, direct user shares), then the checks: a cross product of
  // users and accounts would take minutes on this machine.
  const allowed: { uid: number; rid: number; aid: number }[] = await ds.query(
    `SELECT p.uid, p.rid, p.aid FROM (
       SELECT r.owner_id AS uid, r.id AS rid, a.id AS aid FROM accounts a JOIN resources r ON r.id = a.resource_id
       UNION SELECT s.user_id, s.resource_id, a.id FROM shares s JOIN accounts a ON a.resource_id = s.resource_id
         AND (s.account_id IS NULL OR s.account_id = a.id) WHERE s.user_id IS NOT NULL
     ) p JOIN users u ON u.id = p.uid
     JOIN accounts ba ON ba.id = p.aid JOIN resources br ON br.id = p.rid
     WHERE NOT ${underAccessControlSql('ba', 'br')} AND NOT (u.role = 'Password User' AND EXISTS (SELECT 1 FROM resources hr WHERE hr.id = p.rid AND ${helpdeskBlockedSql('hr')}))
     ORDER BY md5(p.uid || ':' || p.aid) LIMIT 950`,
  );
  const refused: { uid: number; rid: number; aid: number }[] = await ds.query(
    `SELECT u.id AS uid, r.id AS rid, a.id AS aid FROM accounts a JOIN resources r ON r.id = a.resource_id JOIN users u ON u.org_id = r.org_id
     WHERE a.id % 97 = 1 AND u.id % 7 = 2 AND NOT ${visible} ORDER BY md5(u.id || ':' || a.id) LIMIT 50`,
  );
  // Refusals spread among the grants: one in twenty requests.
  const pairs = allowed.flatMap((p, i) => (i % 19 === 18 && refused.length ? [p, refused.pop()!] : [p]));
  return pairs.map((p) => ({ token: tokens.get(p.uid)!, path: `/restapi/json/v1/resources/${p.rid}/accounts/${p.aid}/password` }));
}

async function singleAccount(ds: DataSource, keyring: Keyring, orgId: number, userId: number, token: string): Promise<Target[]> {
  await ds.query(`UPDATE users SET role = 'Administrator' WHERE id = $1`, [userId]);
  const [resource] = await ds.query(
    `INSERT INTO resources (org_id, owner_id, name, name_key, type) VALUES ($1, $2, 'db', 'db', 'Linux') RETURNING id`,
    [orgId, userId],
  );
  const [account] = await ds.query(
    `INSERT INTO accounts (resource_id, name, name_key, password, compliance_policy, compliance_problems) VALUES ($1, 'root', 'root', $2, 'Strong', '') RETURNING id`,
    [resource.id, keyring.seal('Bench-Password-123!', 'accounts.password')],
  );
  return [{ token, path: `/restapi/json/v1/resources/${resource.id}/accounts/${account.id}/password` }];
}

async function load(base: string, targets: Target[], seconds: number, connections = CONNECTIONS): Promise<Omit<Figures, 'name' | 'nodeCpu' | 'pgCpu' | 'rssMb'> & { total: number }> {
  let next = 0;
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req: autocannon.Request) => {
          const t = targets[next++ % targets.length];
          return { ...req, method: 'GET', path: t.path, headers: { AUTHTOKEN: t.token } };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + (result.statusCodeStats?.['500']?.count ?? 0),
    refused: result.non2xx,
    total: result['2xx'] + result.non2xx,
  };
}

/**
 * Waits until the full server's sealer has caught up with the rows earlier programs left,
 * so that each full server measured seals only its own rows (steady state).
 */
async function sealed(watcher: Client): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const { rows } = await watcher.query('SELECT coalesce((SELECT max(id) FROM audit), 0) <= (SELECT last_id FROM audit_chain WHERE id = 1) AS done');
    if (rows[0]?.done) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('The audit sealer did not catch up within 2 minutes');
}

/** CPU ticks so far of the program and of each PostgreSQL backend serving its database. */
async function cpuSample(watcher: Client, pid: number): Promise<{ node: number; pg: Map<number, number> }> {
  const { rows } = await watcher.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  return { node: ticks(pid), pg: new Map(rows.map((r: { pid: number }) => [r.pid, ticks(r.pid)])) };
}

/** Ticks spent between two samples; a backend started in between counts whole. */
function cpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, t] of after) sum += t - (before.get(pid) ?? 0);
  return sum;
}

function ticks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0; // exited
  }
}

function print(rounds: Figures[][], sets: DataSet[]): void {
  for (const set of sets) console.log(`\n[${set.label}]: ${set.targets.length} rotating requests${set.fullOnly ? ' (full server only)' : ''}`);
  console.log(`Password read, ${CONNECTIONS} connections, ${SECONDS} s each${rounds.length > 1 ? `, ${rounds.length} rounds` : ''}`);
  console.log('program                           req/s     p50 ms   p99 ms   node ms/req   pg ms/req   rss MB   refused   errors');
  rounds.forEach((results, i) => {
    for (const r of results) {
      const name = rounds.length > 1 ? `${r.name} #${i + 1}` : r.name;
      console.log(
        `${name.padEnd(33)} ${r.rps.toFixed(0).padStart(6)}   ${String(r.p50).padStart(6)}   ${String(r.p99).padStart(6)}` +
          `   ${r.nodeCpu.toFixed(3).padStart(11)}   ${r.pgCpu.toFixed(3).padStart(9)}   ${r.rssMb.toFixed(0).padStart(6)}   ${String(r.refused).padStart(7)}   ${r.errors}`,
      );
    }
  });
  const ratio = (label: string, top: [string, string?], bottom: [string, string?]) => {
    const values = rounds
      .map((results) => {
        const by = ([name, set = sets[0].label]: [string, string?]) =>
          results.find((r) => r.name.startsWith(name) && (sets.length === 1 || r.name.endsWith(`[${set}]`)));
        const [a, b] = [by(top), by(bottom)];
        return a && b ? a.rps / b.rps : undefined;
      })
      .filter((v): v is number => v !== undefined);
    if (values.length === 0) return;
    console.log(`ratio ${label}: ${roundsRatio(values)}`);
  };
  ratio('full/one-statement', ['full server'], ['one statement']);
  ratio('full/plain', ['full server'], ['plain']);
  ratio('one-statement/plain', ['one statement'], ['plain']);
  ratio('full through two hosts/full through one host, side by side', [TWO_HOSTS], [ONE_HOST]);
  if (sets.length > 1) ratio('full on the seeded data / full on the empty copy', ['full server'], ['full server', 'empty']);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
