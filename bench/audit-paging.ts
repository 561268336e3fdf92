import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { createDataSource } from '@app/persistence';
import { PkiAuditService } from '../apps/pki/src/audit/pki-audit.service';
import { AuditReader } from '../apps/vault/src/audit/audit-reader.service';
import { AuditQueryDto } from '../apps/vault/src/audit/audit.dto';
import { readSeed } from './seed-data';

// GET_AUDIT and pki getAuditDetails on the seeded trail (npm run bench -- seed: 5M rows over
// 90 days; BENCH_AUDIT_ROWS=10000000 for 10M), through the services' own queries: every
// DURATION (and all time), both AUDITTYPEs, STARTINDEX 0 / 1,000 / 10,000, LIMIT 100 / 1,000.
const REPEAT = Number(process.env.BENCH_REPEAT ?? 7);

interface Figure {
  query: string;
  medianMs: number;
  maxMs: number;
  totalRows: number;
}

export async function main(): Promise<Figure[]> {
  const seed = readSeed();
  const ds = createDataSource(seed.databaseUrl, 4);
  await ds.initialize();
  try {
    const [{ n }] = await ds.query('SELECT count(*)::bigint::text AS n FROM audit');
    console.log(`Audit trail: ${n} rows`);
    const figures = await measure(ds, seed.orgId, seed.admin.id);
    console.table(figures);
    const worst = Math.max(...figures.map((f) => f.medianMs));
    console.log(`slowest median: ${worst.toFixed(1)} ms`);
    return figures;
  } finally {
    await ds.destroy();
  }
}

async function measure(ds: DataSource, orgId: number, adminId: number): Promise<Figure[]> {
  const reader = new AuditReader(ds);
  const pki = new PkiAuditService(ds);
  const actor: Actor = { id: adminId, orgId, orgName: 'Default', username: 'bench-admin', role: 'Administrator', isSuperAdmin: true, ip: '', client: '' };
  const figures: Figure[] = [];
  const run = async (label: string, call: () => Promise<{ totalRows?: number }>) => {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < REPEAT; i++) {
      const t = performance.now();
      total = (await call()).totalRows ?? 0;
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    figures.push({ query: label, medianMs: round(times[Math.floor(times.length / 2)]), maxMs: round(times[times.length - 1]), totalRows: total });
  };
  for (const type of ['Resource', 'User'] as const) {
    for (const duration of [undefined, 'TODAY', 'YESTERDAY', 'LAST_7_DAYS'] as const) {
      for (const start of [0, 1_000, 10_000]) {
        for (const limit of [100, 1_000]) {
          const query: AuditQueryDto = { AUDITTYPE: type, DURATION: duration, STARTINDEX: start, LIMIT: limit };
          await run(`${type} ${duration ?? 'all time'} STARTINDEX ${start} LIMIT ${limit}`, () => reader.page(actor, query));
        }
      }
    }
  }
  await run('Resource FROMDATE 60 days ago 13:17 to 3 days ago 09:41', () => {
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    return reader.page(actor, { AUDITTYPE: 'Resource', FROMDATE: `${day(60)} 13:17`, TODATE: `${day(3)} 09:41`, STARTINDEX: 10_000, LIMIT: 1000 });
  });
  for (const start of [1, 10_001]) {
    for (const limit of [100, 1_000]) await run(`pki getAuditDetails STARTINDEX ${start} LIMIT ${limit}`, () => pki.list(actor, { STARTINDEX: start, LIMIT: limit }));
  }
  return figures;
}

function round(ms: number): number {
  return Number(ms.toFixed(1));
}
