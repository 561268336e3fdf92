import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { readSeed } from './seed-data';
import { startServer, stopServer } from './support';

// GET /resources on the seeded data (npm run bench -- seed) through the full server: a Password
// User who sees all 20,000 resources through a rule-based resource-group share, the super
// administrator, and an ordinary user (own resources plus shares). One request at a time.
const REPEAT = Number(process.env.BENCH_REPEAT ?? 9);
/** A caller whose list takes longer than this is reported as such and not repeated. */
const GIVE_UP_MS = Number(process.env.BENCH_GIVE_UP_MS ?? 30_000);

export async function main(): Promise<{ caller: string; resources: number; medianMs: number | string }[]> {
  const seed = readSeed();
  const { port, child } = await startServer('full-server.js', { DATABASE_URL: seed.databaseUrl, MASTER_KEY: seed.masterKey });
  try {
    const figures: { caller: string; resources: number; medianMs: number | string }[] = [];
    const page = `?INPUT_DATA=${encodeURIComponent(JSON.stringify({ operation: { Details: { STARTINDEX: '10000', LIMIT: '100' } } }))}`;
    for (const [caller, token, query] of [
      ['Password User seeing 20,000 (rule-group share)', seed.wide.token, ''],
      ['the same, a page of 100 (STARTINDEX 10000, LIMIT 100)', seed.wide.token, page],
      ['super administrator (20,000)', seed.admin.token, ''],
      ['ordinary Password User', seed.users[0].token, ''],
    ]) {
      const times: number[] = [];
      let resources = 0;
      let gaveUp = false;
      for (let i = 0; i < REPEAT + 1 && !gaveUp; i++) {
        const t = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}/restapi/json/v1/resources${query}`, { headers: { AUTHTOKEN: token }, signal: AbortSignal.timeout(GIVE_UP_MS) }).catch(
          () => undefined,
        );
        if (!res) {
          gaveUp = true;
          break;
        }
        const body = (await res.json()) as { operation: { Details?: unknown[]; result: { message: string } } };
        if (i > 0) times.push(performance.now() - t); // the first warms the JIT and the pool
        resources = body.operation.Details?.length ?? 0;
        if (!body.operation.Details) throw new Error(`GET /resources failed: ${body.operation.result.message}`);
      }
      times.sort((a, b) => a - b);
      figures.push({ caller, resources, medianMs: gaveUp ? `> ${GIVE_UP_MS}` : Number(times[Math.floor(times.length / 2)].toFixed(1)) });
    }
    console.table(figures);
    return figures;
  } finally {
    await stopServer(child);
  }
}
