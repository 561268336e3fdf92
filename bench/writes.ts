import 'reflect-metadata';
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { readSeed, SeedInfo } from './seed-data';
import { cpuMs, cpuTicks, roundsRatio, startServer, stopServer } from './support';

// Resource creation and password change on the seeded data (npm run bench -- seed): the full
// server beside a minimal node:http + pg program doing the same insert/update plus audit row.
// CPU per request counts the program's process and every backend on the database while it
// runs (autovacuum workers included: noise that lands on whichever program is running).
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
/** BENCH_WRITES=create or =change runs that operation alone (default both). */
const ONLY = process.env.BENCH_WRITES;

interface Figure {
  operation: string;
  program: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU milliseconds per request of the program's process and of its PostgreSQL backends. */
  nodeCpu: number;
  pgCpu: number;
}

export async function main(): Promise<Figure[]> {
  const seed = readSeed();
  const env = { DATABASE_URL: seed.databaseUrl, MASTER_KEY: seed.masterKey, DB_POOL_SIZE: '20' };
  const run = randomBytes(3).toString('hex');
  const figures: Figure[] = [];
  try {
    await measure(seed, env, run, figures);
  } finally {
    await removeCreated(seed, run);
  }
  console.table(figures);
  for (const operation of ['create resource', 'change password']) {
    if (ONLY && !operation.startsWith(ONLY)) continue;
    const ratios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const [plain, full] = figures.filter((f) => f.operation === (ROUNDS > 1 ? `${operation} #${round}` : operation));
      ratios.push(full.rps / plain.rps);
    }
    console.log(`${operation}: full/plain ${roundsRatio(ratios)}`);
  }
  return figures;
}

/**
 * The resources this run created (named bench-<run>-...) leave the seeded data set, so that
 * later benchmarks (resources-list above all) meet the seed as it was made. Their audit rows
 * stay, as every audit row does.
 */
async function removeCreated(seed: SeedInfo, run: string): Promise<void> {
  const db = new Client({ connectionString: seed.databaseUrl });
  await db.connect();
  try {
    const { rowCount } = await db.query('DELETE FROM resources WHERE name LIKE $1', [`bench-${run}-%`]);
    if (rowCount) console.log(`removed the ${rowCount} resources this run created`);
  } finally {
    await db.end();
  }
}

async function measure(seed: SeedInfo, env: Record<string, string>, run: string, figures: Figure[]): Promise<void> {
  // Each operation on both programs back to back, so that the two figures of a ratio are
  // measured under the same load of this shared machine (a server per measurement);
  // BENCH_ROUNDS=n does it all n times and reports each ratio's median.
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [operation, requests] of [
      ['create resource', (script: string) => creations(`${run}-${round}-${script.slice(0, 5)}`)],
      ['change password', (script: string) => changes(seed, `${run}-${round}-${script.slice(0, 5)}`)],
    ] as const) {
      if (ONLY && !operation.startsWith(ONLY)) continue;
      for (const [program, script] of [
        ['plain node:http + pg', 'plain-writer.js'],
        ['full server', 'full-server.js'],
      ]) {
        const { port, child } = await startServer(script, env);
        const watcher = new Client({ connectionString: seed.databaseUrl });
        await watcher.connect();
        try {
          if (script === 'full-server.js') await backlogSealed(watcher);
          const base = `http://127.0.0.1:${port}/restapi/json/v1/resources`;
          const request = requests(script);
          await load(base, seed.admin.token, request, 2);
          const before = await cpuTicks(watcher, child.pid!);
          const { total, ...r } = await load(base, seed.admin.token, request, SECONDS);
          const cpu = cpuMs(before, await cpuTicks(watcher, child.pid!));
          figures.push({ operation: ROUNDS > 1 ? `${operation} #${round}` : operation, program, ...r, nodeCpu: round3(cpu.node / Math.max(total, 1)), pgCpu: round3(cpu.pg / Math.max(total, 1)) });
          // Requests cut off by the end of the run still run in the server: let them finish,
          // or they meet the pool the server's shutdown has ended (an error in its output).
          await new Promise((resolve) => setTimeout(resolve, 500));
        } finally {
          await watcher.end();
          await stopServer(child);
        }
      }
    }
  }
}

/**
 * Waits until the full server's audit sealer has sealed the rows already there when it
 * started: those the plain program (which has no sealer) just wrote. Otherwise the full
 * server's figures pay for sealing the other program's rows; its own it seals as it goes.
 */
async function backlogSealed(db: Client): Promise<void> {
  const [{ head }] = (await db.query('SELECT coalesce(max(id), 0)::text AS head FROM audit')).rows;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [{ done }] = (await db.query('SELECT coalesce((SELECT last_id FROM audit_chain WHERE id = 1), 0) >= $1::bigint AS done', [head])).rows;
    if (done) return;
    if (Date.now() > deadline) {
      console.warn('The audit backlog is still being sealed; measuring anyway');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

type Next = () => { method: 'POST' | 'PUT'; path: string; body: string };

function form(details: Record<string, string>): string {
  return `INPUT_DATA=${encodeURIComponent(JSON.stringify({ operation: { Details: details } }))}`;
}

function creations(prefix: string): Next {
  let n = 0;
  return () => {
    n += 1;
    const name = `bench-${prefix}-${n}`;
    return { method: 'POST', path: '', body: form({ RESOURCENAME: name, RESOURCETYPE: 'Linux', ACCOUNTNAME: 'root', PASSWORD: `Bench-Pw-${n}-Xy9!long` }) };
  };
}

/**
 * Rotates over many accounts so that changes do not queue on one row. The passwords carry
 * the run's prefix: the seeded database outlives a run, and a password an earlier run (or
 * the other program) stored would be refused as a reuse by the full server's history check.
 */
function changes(seed: SeedInfo, prefix: string): Next {
  const pairs = seed.users.flatMap((u) => u.own);
  let n = 0;
  return () => {
    const [rid, aid] = pairs[n++ % pairs.length];
    return { method: 'PUT', path: `/${rid}/accounts/${aid}/password`, body: form({ NEWPASSWORD: `Pw-${prefix}-${n}-Xy9!`, REASON: 'bench' }) };
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

async function load(base: string, token: string, next: Next, seconds: number): Promise<Omit<Figure, 'operation' | 'program' | 'nodeCpu' | 'pgCpu'> & { total: number }> {
  let failed = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { AUTHTOKEN: token, 'Content-Type': 'application/x-www-form-urlencoded' },
    requests: [
      {
        setupRequest: (req) => {
          const r = next();
          return { ...req, method: r.method, path: `/restapi/json/v1/resources${r.path}`, body: r.body };
        },
        // Both programs answer a refusal with 200 and a Failed status: count those too.
        onResponse: (_status, body) => {
          if (!body.includes('"Success"')) failed += 1;
        },
      },
    ],
  });
  const bad = result.errors + result.timeouts + result.non2xx + failed;
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: bad, total: result.requests.total };
}
