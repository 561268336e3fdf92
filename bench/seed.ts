import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { AuditSealer } from '@app/audit';
import { Keyring, parseKeyMaterial } from '@app/crypto';
import { createDataSource, runMigrations } from '@app/persistence';
import { resourceVisibleSql } from '@app/gate';
import { makeEmptyTwin } from './read-data';
import { readSeed, SIZES, seedAudit, seedDirectory, writeSeed } from './seed-data';

// `npm run bench -- seed`: the realistic data set the other benchmarks run on, in its own
// database (BENCH_SEED_DB, default vault_bench_seed, replaced) on DATABASE_URL's server.
// BENCH_AUDIT_ROWS (default 5,000,000) audit rows over 90 days, sealed by the real sealer.
const AUDIT_ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 5_000_000);
const DAYS = 90;

export async function main(): Promise<void> {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error('Set DATABASE_URL to a PostgreSQL server (the seeded database is created beside it)');
  const name = process.env.BENCH_SEED_DB ?? 'vault_bench_seed';
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error('BENCH_SEED_DB must be a plain lower-case name');
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();

  Logger.overrideLogger(['error', 'warn']); // one checkpoint line per sealed batch otherwise
  const started = performance.now();
  const step = (label: string) => console.log(`${((performance.now() - started) / 1000).toFixed(1).padStart(7)} s  ${label}`);
  await runMigrations(databaseUrl);
  const ds = createDataSource(databaseUrl, 4);
  await ds.initialize();
  try {
    const masterKey = randomBytes(32).toString('hex');
    const keyring = new Keyring(ds, parseKeyMaterial(masterKey));
    await keyring.load();
    const directory = await seedDirectory(ds, keyring);
    step(`${SIZES.users} users, ${SIZES.userGroups} groups, ${SIZES.resources} resources x ${SIZES.accountsPerResource} accounts, ${SIZES.resourceGroups} resource groups, shares, access control`);
    // Keep only refused pairs that really are refused, whatever group or rule share reaches them.
    for (const user of directory.users) {
      const keep: [number, number][] = [];
      for (const [rid, aid] of user.refused) {
        const [visible] = await ds.query(
          `SELECT 1 FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE a.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}`,
          [directory.orgId, user.id, false, aid],
        );
        if (!visible) keep.push([rid, aid]);
      }
      user.refused = keep;
    }
    await seedAudit(ds, directory.orgId, AUDIT_ROWS, DAYS, step);
    step(`${AUDIT_ROWS} audit rows over ${DAYS} days`);
    await new AuditSealer(ds, keyring).sealNow(60_000);
    step('audit rows sealed (hash chain, per-hour counts)');
    await ds.query('VACUUM ANALYZE');
    step('VACUUM ANALYZE');
    const info = { databaseUrl, masterKey, auditRows: AUDIT_ROWS, ...directory };
    writeSeed(info);
    const [{ shares }] = await ds.query('SELECT count(*)::int AS shares FROM shares');
    const [{ controlled }] = await ds.query('SELECT count(*)::int AS controlled FROM access_controls');
    console.log(`Seeded ${databaseUrl.replace(/\/\/[^@]*@/, '//')}: ${shares} shares, ${controlled} accounts under access control.`);
  } finally {
    await ds.destroy();
  }
  await makeEmptyTwin(readSeed());
  step('empty twin for the password read (only the resources its requests name)');
}
