import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { createDataSource, runMigrations } from '@app/persistence';
import { AuditReader } from '../apps/vault/src/audit/audit-reader.service';
import { AuditQueryDto } from '../apps/vault/src/audit/audit.dto';
import { benchDatabase } from './support';

// GET_AUDIT page latency on a large trail: ~1.5 million Resource rows of one organisation
// over the last 7 days (plus User rows and another organisation), through the service's
// own queries. BENCH_AUDIT_ROWS changes the size.
const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 1_500_000);
const REPEAT = 5;
const LIMIT = 100;

interface Figure {
  query: string;
  medianMs: number;
  totalRows: number;
}

export async function main(): Promise<Figure[]> {
  const db = await benchDatabase();
  try {
    await runMigrations(db.url);
    const ds = createDataSource(db.url, 4);
    await ds.initialize();
    try {
      const started = performance.now();
      await seed(ds);
      console.log(`Seeded ${ROWS} + ${Math.round(ROWS / 5)} + ${Math.round(ROWS / 10)} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      const figures = await measure(ds);
      console.table(figures);
      await explain(ds);
      return figures;
    } finally {
      await ds.destroy();
    }
  } finally {
    await db.drop();
  }
}

async function seed(ds: DataSource): Promise<void> {
  await ds.query(`INSERT INTO organizations (id, name) VALUES (1, 'Default'), (2, 'Other')`);
  // Spread over the last 7 days, newest last, as a real trail grows.
  const insert = (org: number, category: string, n: number) =>
    ds.query(
      `INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, client, resource_name, account_name, created_at)
       SELECT $1, $2, 'Password Retrieved', 'Success', 1, 'user' || (i % 50), '10.0.' || (i % 250) || '.1', 'bench',
              'res-' || (i % 1000), 'acc-' || (i % 7), now() - interval '7 days' + (i * (interval '7 days' / $3::int))
       FROM generate_series(1, $3::int) i`,
      [org, category, n],
    );
  await insert(1, 'Resource', ROWS);
  await insert(1, 'User', Math.round(ROWS / 5));
  await insert(2, 'Resource', Math.round(ROWS / 10));
  // Index-only scans need the visibility map; autovacuum would do this on a live system.
  await ds.query('VACUUM ANALYZE audit');
}

async function measure(ds: DataSource): Promise<Figure[]> {
  const reader = new AuditReader(ds);
  const actor: Actor = { id: 1, orgId: 1, orgName: 'Default', username: 'bench', role: 'Administrator', isSuperAdmin: true, ip: '', client: '' };
  const figures: Figure[] = [];
  const run = async (label: string, query: AuditQueryDto) => {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < REPEAT; i++) {
      const t = performance.now();
      const reply = await reader.page(actor, query);
      times.push(performance.now() - t);
      total = reply.totalRows ?? 0;
    }
    times.sort((a, b) => a - b);
    figures.push({ query: label, medianMs: Number(times[Math.floor(times.length / 2)].toFixed(2)), totalRows: total });
  };
  for (const offset of [0, 1_000, 10_000, 100_000, 500_000, 1_000_000, ROWS - LIMIT]) {
    if (offset < ROWS) await run(`all time, STARTINDEX ${offset}`, { AUDITTYPE: 'Resource', STARTINDEX: offset, LIMIT: LIMIT });
  }
  await run('LAST_7_DAYS, STARTINDEX 0', { AUDITTYPE: 'Resource', DURATION: 'LAST_7_DAYS', LIMIT: LIMIT });
  await run('TODAY, STARTINDEX 0', { AUDITTYPE: 'Resource', DURATION: 'TODAY', LIMIT: LIMIT });
  await run('User, STARTINDEX 0', { AUDITTYPE: 'User', LIMIT: LIMIT });
  // Keyset: the page after a deep entry, without counting past rows.
  const [deep] = await ds.query(
    `SELECT id::text AS id FROM audit WHERE org_id = 1 AND category = 'Resource' ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1`,
    [Math.min(1_000_000, ROWS - LIMIT - 1)],
  );
  await run(`keyset BEFOREID at ~${Math.min(1_000_000, ROWS - LIMIT - 1)}`, { AUDITTYPE: 'Resource', BEFOREID: deep.id, LIMIT: LIMIT });
  return figures;
}

async function explain(ds: DataSource): Promise<void> {
  const plan = async (label: string, sql: string, params: unknown[]) => {
    const rows: { 'QUERY PLAN': string }[] = await ds.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params);
    console.log(`\n${label}:\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  };
  const filter = `org_id = 1 AND category = 'Resource' AND created_at >= '-infinity' AND created_at < 'infinity'`;
  await plan('page at STARTINDEX 100000', `SELECT id FROM audit WHERE ${filter} ORDER BY created_at DESC, id DESC OFFSET 100000 LIMIT 100`, []);
  await plan('count', `SELECT count(*) FROM audit WHERE ${filter}`, []);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
