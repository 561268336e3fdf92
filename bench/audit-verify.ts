import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { verifyAuditChain } from '@app/audit';
import { Keyring, parseKeyMaterial } from '@app/crypto';
import { createDataSource } from '@app/persistence';
import { readSeed } from './seed-data';

// verify-audit over the seeded trail (npm run bench -- seed; BENCH_AUDIT_ROWS=10000000 for 10M).
export async function main(): Promise<{ rows: number; seconds: number }> {
  const seed = readSeed();
  const ds = createDataSource(seed.databaseUrl, 2);
  await ds.initialize();
  try {
    const keyring = new Keyring(ds, parseKeyMaterial(seed.masterKey));
    await keyring.load();
    const started = performance.now();
    const cpu = process.cpuUsage();
    const report = await verifyAuditChain(ds, keyring);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    if (!report.ok) throw new Error(`verify-audit failed: ${report.problem!.message}`);
    console.log(`verify-audit: ${report.checked} sealed rows in ${seconds.toFixed(1)} s (${Math.round(report.checked / seconds)} rows/s), node CPU ${((used.user + used.system) / 1e6).toFixed(1)} s, ${report.unsealed} not sealed yet`);
    return { rows: report.checked, seconds };
  } finally {
    await ds.destroy();
  }
}
