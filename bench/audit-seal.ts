import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { AuditSealer } from '@app/audit';
import { Keyring, parseKeyMaterial } from '@app/crypto';
import { createDataSource } from '@app/persistence';
import { readSeed } from './seed-data';
import { cpuMs, cpuTicks, median } from './support';

// The audit sealer's cost per row, which every audited request pays in the background: on the
// seeded data (npm run bench -- seed), BENCH_SEAL_ROWS copies of seeded audit rows are added
// and sealed with AuditSealer.sealNow, BENCH_ROUNDS times. CPU per row of this process (node)
// and of the database's backends (PostgreSQL), medians over the rounds. The rows stay sealed.
const ROWS = Number(process.env.BENCH_SEAL_ROWS ?? 100_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

export async function main(): Promise<{ rowsPerSecond: number; nodeUs: number; pgUs: number }> {
  const seed = readSeed();
  const ds = createDataSource(seed.databaseUrl, 4);
  await ds.initialize();
  const watcher = new Client({ connectionString: seed.databaseUrl });
  await watcher.connect();
  try {
    const keyring = new Keyring(ds, parseKeyMaterial(seed.masterKey));
    await keyring.load();
    const sealer = new AuditSealer(ds, keyring); // not started: no timer, sealNow alone
    await sealer.sealNow(600_000); // whatever earlier runs left
    const rounds: { rowsPerSecond: number; nodeUs: number; pgUs: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await watcher.query(
        `INSERT INTO audit (created_at, org_id, category, operation, outcome, actor_id, actor_name, ip, client, resource_id, resource_name, account_id, account_name, reason)
         SELECT now(), org_id, category, operation, outcome, actor_id, actor_name, ip, client, resource_id, resource_name, account_id, account_name, reason
         FROM audit WHERE id <= (SELECT min(id) FROM audit) + $1 - 1 ORDER BY id`,
        [ROWS],
      );
      const before = await cpuTicks(watcher, process.pid);
      const node = process.cpuUsage();
      const started = performance.now();
      await sealer.sealNow(600_000);
      const seconds = (performance.now() - started) / 1000;
      const pg = cpuMs(before, await cpuTicks(watcher, process.pid)).pg;
      const used = process.cpuUsage(node);
      rounds.push({ rowsPerSecond: Math.round(ROWS / seconds), nodeUs: round1(((used.user + used.system) / ROWS)), pgUs: round1((pg * 1000) / ROWS) });
    }
    console.table(rounds);
    const figures = {
      rowsPerSecond: median(rounds.map((r) => r.rowsPerSecond)),
      nodeUs: median(rounds.map((r) => r.nodeUs)),
      pgUs: median(rounds.map((r) => r.pgUs)),
    };
    console.log(`audit-seal: ${ROWS} rows a round, medians of ${ROUNDS}: ${figures.rowsPerSecond} rows/s, node ${figures.nodeUs} µs + PostgreSQL ${figures.pgUs} µs of CPU a row`);
    return figures;
  } finally {
    await watcher.end();
    await ds.destroy();
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
