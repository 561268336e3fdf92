import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { readSeed } from './seed-data';
import { startServer, stopServer } from './support';

// Check-out / check-in cycles on the seeded data (npm run bench -- seed): the users of each
// exclusive, approval-free account compete for it through the full server (request, check-out,
// check-in), all accounts at once. Reports cycles/s, refused check-outs, and double check-outs
// found afterwards in the audit trail (a second check-out of an account before its check-in).
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 25);

export async function main(): Promise<{ cycles: number; cyclesPerSecond: number; refused: number; doubleCheckouts: number }> {
  const seed = readSeed();
  const { port, child } = await startServer('full-server.js', { DATABASE_URL: seed.databaseUrl, MASTER_KEY: seed.masterKey, DB_POOL_SIZE: '20' });
  const db = new Client({ connectionString: seed.databaseUrl });
  await db.connect();
  try {
    const [{ start }] = (await db.query('SELECT coalesce(max(id), 0)::text AS start FROM audit')).rows;
    const base = `http://127.0.0.1:${port}/restapi/json/v1/accounts`;
    const post = async (token: string, path: string): Promise<string> => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { AUTHTOKEN: token, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `INPUT_DATA=${encodeURIComponent(JSON.stringify({ operation: { Details: { REASON: 'bench cycle' } } }))}`,
      });
      const body = (await res.json()) as { operation: { result: { status: string; message: string } } };
      return body.operation.result.status === 'Success' ? 'ok' : body.operation.result.message;
    };
    let cycles = 0;
    let refused = 0;
    const unexpected = new Map<string, number>();
    const deadline = performance.now() + SECONDS * 1000;
    const worker = async (accountId: number, userId: number) => {
      const token = seed.tokens[userId];
      while (performance.now() < deadline) {
        await post(token, `/${accountId}/requestpassword`); // refused while an earlier request is still open: fine
        const out = await post(token, `/${accountId}/checkout`);
        if (out !== 'ok') {
          if (/already checked out/.test(out)) refused += 1;
          else unexpected.set(out, (unexpected.get(out) ?? 0) + 1);
          continue;
        }
        const back = await post(token, `/${accountId}/requester/${userId}/checkin`);
        if (back !== 'ok') throw new Error(`check-in failed: ${back}`);
        cycles += 1;
      }
    };
    const started = performance.now();
    await Promise.all(seed.checkouts.slice(0, ACCOUNTS).flatMap((c) => c.userIds.map((u) => worker(c.accountId, u))));
    const seconds = (performance.now() - started) / 1000;
    // Per account, in audit order: a check-out must never follow a check-out without a check-in between.
    const events = (
      await db.query(
        `SELECT account_id, operation FROM audit WHERE id > $1 AND operation IN ('Password Checked Out', 'Password Checked In') ORDER BY id`,
        [start],
      )
    ).rows as { account_id: number; operation: string }[];
    const out = new Set<number>();
    let doubleCheckouts = 0;
    for (const e of events) {
      if (e.operation === 'Password Checked Out') {
        if (out.has(e.account_id)) doubleCheckouts += 1;
        out.add(e.account_id);
      } else out.delete(e.account_id);
    }
    const figures = { cycles, cyclesPerSecond: Number((cycles / seconds).toFixed(1)), refused, doubleCheckouts };
    console.log(`${ACCOUNTS} accounts, ${seed.checkouts.slice(0, ACCOUNTS).reduce((n, c) => n + c.userIds.length, 0)} competing users, ${seconds.toFixed(1)} s`);
    console.table([figures]);
    if (unexpected.size) console.log('other refusals:', Object.fromEntries(unexpected));
    if (doubleCheckouts > 0) throw new Error(`${doubleCheckouts} double check-outs`);
    return figures;
  } finally {
    await db.end();
    await stopServer(child);
  }
}
