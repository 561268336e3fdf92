import 'reflect-metadata';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { ConnectorKind } from '@app/connectors';
import { runMigrations } from '@app/persistence';
import { useHostKeyPins } from '@app/pki/ssh';
import { ConnectorPeer, PEER_KINDS, startPeer } from '../test/support/connector-peers';
import { freeLoopbackPort } from '../test/support/peer-tls';
import { ServiceProcess } from '../test/reliability/service-process';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 16);
const VERIFY_ACCOUNTS = Number(process.env.BENCH_VERIFY_ACCOUNTS ?? 1000);
// Each SSH account is a local user (useradd): fewer of them, the time scaled to 1,000.
const SSH_VERIFY_ACCOUNTS = Number(process.env.BENCH_SSH_VERIFY_ACCOUNTS ?? 60);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Figures {
  kind: ConnectorKind;
  changes: number;
  changesPerSecond: number;
  failed: number;
  verified: number;
  verifySeconds: number;
  secondsPer1000: number;
}

async function main(): Promise<void> {
  useHostKeyPins({ verify: async () => undefined });
  const kinds = (process.env.BENCH_KINDS?.split(',') as ConnectorKind[] | undefined) ?? PEER_KINDS;
  const rows: Figures[] = [];
  for (const kind of kinds) rows.push(await benchKind(kind));
  console.log(`remote changes: ${WORKERS} accounts changed concurrently for ${SECONDS} s; verification: the periodic round (8 logins at once per instance)`);
  console.table(rows);
}

async function benchKind(kind: ConnectorKind): Promise<Figures> {
  const peer = await startPeer(kind);
  const database = `bench_connectors_${process.pid}_${kind}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = ADMIN_URL.replace(/\/[^/]*$/, `/${database}`);
  await runMigrations(url);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-connectors-'));
  const vault = new ServiceProcess(await freeLoopbackPort(), { DATABASE_URL: url, DATA_DIR: dataDir, DB_POOL_SIZE: '20', VERIFY_INTERVAL_MS: '3600000' });
  await vault.start();
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
    const call = async (method: string, path: string, details: Record<string, unknown>) => {
      const res = await fetch(`${vault.url}/restapi/json/v1${path}`, {
        method,
        headers: { AUTHTOKEN: token, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `INPUT_DATA=${encodeURIComponent(JSON.stringify({ operation: { Details: details } }))}`,
      });
      return ((await res.json()) as { operation: { result: { status: string; message: string } } }).operation.result;
    };
    const created = await call('POST', '/resources', { RESOURCENAME: `${kind}-bench`, RESOURCETYPE: peer.resourceType, DNSNAME: '127.0.0.1', ACCOUNTNAME: peer.admin.username, PASSWORD: peer.admin.password });
    if (created.status !== 'Success') throw new Error(created.message);
    const [{ id: rid }] = (await db.query(`SELECT id FROM resources WHERE name = $1`, [`${kind}-bench`])).rows;
    const addAccounts = async (count: number, prefix: string) => {
      const list = [];
      for (let i = 0; i < count; i++) {
        const password = `Bench-${prefix}-${i}-Xy9!`;
        list.push({ ACCOUNTNAME: await peer.createAccount(password, kind === 'ssh' ? undefined : `${prefix}_${i}`), PASSWORD: password });
      }
      for (let i = 0; i < list.length; i += 100) {
        const added = await call('POST', `/resources/${rid}/accounts`, { ACCOUNTLIST: list.slice(i, i + 100) });
        if (added.status !== 'Success') throw new Error(added.message);
      }
      const names = list.map((a) => a.ACCOUNTNAME);
      return (await db.query('SELECT id FROM accounts WHERE resource_id = $1 AND name = ANY($2) ORDER BY id', [rid, names])).rows.map((r) => r.id as number);
    };

    const changeIds = await addAccounts(WORKERS, 'chg');
    // Configured after the accounts exist and verified at once: the first round runs at start, so these wait an hour.
    await db.query(`UPDATE accounts SET last_verified_at = now() WHERE resource_id = $1`, [rid]);
    const configured = await call('PUT', `/resources/${rid}/remotepasswordreset`, { ACCOUNTNAME: peer.admin.username, ...peer.config });
    if (configured.status !== 'Success') throw new Error(configured.message);

    let changes = 0;
    let failed = 0;
    let serial = 0;
    const deadline = performance.now() + SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      changeIds.map(async (aid) => {
        while (performance.now() < deadline) {
          const answer = await call('PUT', `/resources/${rid}/accounts/${aid}/password`, { NEWPASSWORD: `Bench-New-${++serial}-Xy9!`, RESETTYPE: 'REMOTE' });
          if (answer.status === 'Success') changes++;
          else if (++failed <= 3) console.log(`${kind}: ${answer.message}`);
        }
      }),
    );
    const changeSeconds = (performance.now() - started) / 1000;

    const count = kind === 'ssh' ? SSH_VERIFY_ACCOUNTS : VERIFY_ACCOUNTS;
    const verifyIds = await addAccounts(count, 'ver');
    // Due now: the instance's next round (every 10 s at the longest) claims them 50 at a time.
    await db.query('UPDATE accounts SET last_verified_at = NULL, verify_claimed_at = NULL WHERE id = ANY($1)', [verifyIds]);
    let first = 0;
    let done = 0;
    for (;;) {
      const [{ n }] = (await db.query('SELECT count(*)::int AS n FROM accounts WHERE id = ANY($1) AND last_verified_at IS NOT NULL', [verifyIds])).rows;
      if (n > 0 && !first) first = performance.now();
      if (n === verifyIds.length) {
        done = performance.now();
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const [{ insync }] = (await db.query(`SELECT count(*) FILTER (WHERE password_status = 'IN SYNC')::int AS insync FROM accounts WHERE id = ANY($1)`, [verifyIds])).rows;
    if (insync !== verifyIds.length) console.log(`${kind}: ${verifyIds.length - insync} accounts not IN SYNC`);
    const verifySeconds = (done - first) / 1000;
    return {
      kind,
      changes,
      changesPerSecond: Number((changes / changeSeconds).toFixed(1)),
      failed,
      verified: verifyIds.length,
      verifySeconds: Number(verifySeconds.toFixed(2)),
      secondsPer1000: Number(((verifySeconds * 1000) / verifyIds.length).toFixed(1)),
    };
  } finally {
    await db.end();
    await vault.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await peer.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
