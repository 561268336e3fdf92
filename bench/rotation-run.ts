import 'reflect-metadata';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { ConnectorKind } from '@app/connectors';
import { runMigrations } from '@app/persistence';
import { useHostKeyPins } from '@app/pki/ssh';
import { PEER_KINDS, startPeer } from '../test/support/connector-peers';
import { freeLoopbackPort } from '../test/support/peer-tls';
import { ServiceProcess } from '../test/reliability/service-process';

// One schedule due at once for ACCOUNTS accounts of one resource; the time from the due time
// to the last run done, with ROTATION_CONCURRENCY accounts at once on each of INSTANCES instances.
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 300);
// Each SSH account is a local user (useradd): fewer of them.
const SSH_ACCOUNTS = Number(process.env.BENCH_SSH_ACCOUNTS ?? 40);
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '4';
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 1);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Figures {
  kind: ConnectorKind;
  accounts: number;
  seconds: number;
  perMinute: number;
  failed: number;
}

async function main(): Promise<void> {
  useHostKeyPins({ verify: async () => undefined });
  const kinds = (process.env.BENCH_KINDS?.split(',') as ConnectorKind[] | undefined) ?? PEER_KINDS;
  const rows: Figures[] = [];
  for (const kind of kinds) rows.push(await benchKind(kind));
  console.log(`scheduled rotation: one due time, ${INSTANCES} instance(s), ROTATION_CONCURRENCY=${CONCURRENCY}`);
  console.table(rows);
}

async function benchKind(kind: ConnectorKind): Promise<Figures> {
  const peer = await startPeer(kind);
  const database = `bench_rotation_${process.pid}_${kind}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = ADMIN_URL.replace(/\/[^/]*$/, `/${database}`);
  await runMigrations(url);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-rotation-'));
  const env = { DATABASE_URL: url, DATA_DIR: dataDir, DB_POOL_SIZE: '20', VERIFY_INTERVAL_MS: '0', ROTATION_TICK_MS: '100', ROTATION_CONCURRENCY: CONCURRENCY };
  const instances: ServiceProcess[] = [];
  for (let i = 0; i < INSTANCES; i++) {
    const instance = new ServiceProcess(await freeLoopbackPort(), env);
    await instance.start();
    instances.push(instance);
  }
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
    const call = async (method: string, path: string, details: Record<string, unknown>) => {
      const res = await fetch(`${instances[0].url}/restapi/json/v1${path}`, {
        method,
        headers: { AUTHTOKEN: token, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `INPUT_DATA=${encodeURIComponent(JSON.stringify({ operation: { Details: details } }))}`,
      });
      const op = ((await res.json()) as { operation: { result: { status: string; message: string }; Details?: Record<string, string> } }).operation;
      if (op.result.status !== 'Success') throw new Error(`${method} ${path}: ${op.result.message}`);
      return op;
    };
    await call('POST', '/resources', { RESOURCENAME: `${kind}-fleet`, RESOURCETYPE: peer.resourceType, DNSNAME: '127.0.0.1', ACCOUNTNAME: peer.admin.username, PASSWORD: peer.admin.password });
    const [{ id: rid }] = (await db.query(`SELECT id FROM resources WHERE name = $1`, [`${kind}-fleet`])).rows;
    const count = kind === 'ssh' ? SSH_ACCOUNTS : ACCOUNTS;
    const list = [];
    for (let i = 0; i < count; i++) {
      const password = `Bench-Rot-${i}-Xy9!`;
      list.push({ ACCOUNTNAME: await peer.createAccount(password, kind === 'ssh' ? undefined : `rot_${i}`), PASSWORD: password });
    }
    for (let i = 0; i < list.length; i += 100) await call('POST', `/resources/${rid}/accounts`, { ACCOUNTLIST: list.slice(i, i + 100) });
    await call('PUT', `/resources/${rid}/remotepasswordreset`, { ACCOUNTNAME: peer.admin.username, ...peer.config });
    const group = await call('POST', '/resourcegroup', { critgroup: `${kind}-fleet`, GROUPTYPE: 'static' });
    const gid = Number(group.Details!.RESOURCEGROUPID);
    await call('PUT', `/resourcegroup/${gid}/resources`, { RESOURCEIDS: [String(rid)] });
    await call('PUT', `/resourcegroup/${gid}/passwordrotation`, { ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'days' });

    await db.query('UPDATE rotation_schedules SET next_run = now() WHERE group_id = $1', [gid]);
    const started = performance.now();
    for (;;) {
      const [{ left }] = (await db.query(`SELECT count(*)::int AS left FROM rotation_runs WHERE status = 'due'`)).rows;
      const [{ runs }] = (await db.query('SELECT count(*)::int AS runs FROM rotation_runs')).rows;
      if (runs > 0 && left === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const [{ done, failed }] = (
      await db.query(`SELECT count(*) FILTER (WHERE status = 'done')::int AS done, count(*) FILTER (WHERE status = 'failed')::int AS failed FROM rotation_runs`)
    ).rows;
    return { kind, accounts: done + failed, seconds: Number(seconds.toFixed(2)), perMinute: Math.round((done * 60) / seconds), failed };
  } finally {
    await db.end();
    for (const instance of instances) await instance.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await peer.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
