import 'reflect-metadata';
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { readSeed } from './seed-data';
import { startServer, stopServer } from './support';

// GET /resources on the seeded data (npm run bench -- seed) through the full server: a Password
// User who sees all 20,000 resources through a rule-based resource-group share, the super
// administrator, and an ordinary user (own resources plus shares). One request at a time.
// medianMs is a client's whole wait (fetch, then the body parsed as JSON); lastByteMs the time
// to the last byte of the answer (node:http, nothing parsed), what curl reports as time_total:
// the server and the transfer, without the client's own work on 2.6 MB of JSON.
const REPEAT = Number(process.env.BENCH_REPEAT ?? 9);
/** A caller whose list takes longer than this is reported as such and not repeated. */
const GIVE_UP_MS = Number(process.env.BENCH_GIVE_UP_MS ?? 30_000);

type Figure = { caller: string; resources: number; medianMs: number | string; lastByteMs: number | string };

export async function main(): Promise<Figure[]> {
  const seed = readSeed();
  const { port, child } = await startServer('full-server.js', { DATABASE_URL: seed.databaseUrl, MASTER_KEY: seed.masterKey });
  try {
    const figures: Figure[] = [];
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
      const lastBytes: number[] = [];
      for (let i = 0; i < REPEAT && !gaveUp; i++) lastBytes.push(await timeToLastByte(`http://127.0.0.1:${port}/restapi/json/v1/resources${query}`, token));
      figures.push({ caller, resources, medianMs: gaveUp ? `> ${GIVE_UP_MS}` : median(times), lastByteMs: gaveUp ? '-' : median(lastBytes) });
    }
    console.table(figures);
    return figures;
  } finally {
    await stopServer(child);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number(sorted[Math.floor(sorted.length / 2)].toFixed(1));
}

/** Milliseconds from sending the request to the answer's last byte; the body is only counted. */
function timeToLastByte(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    get(url, { headers: { AUTHTOKEN: token } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => (res.statusCode === 200 && bytes > 0 ? resolve(performance.now() - started) : reject(new Error(`GET /resources answered ${res.statusCode}`))));
      res.on('error', reject);
    }).on('error', reject);
  });
}
