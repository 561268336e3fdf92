import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { Keyring, loadMasterKey } from '@app/crypto';
import { createDataSource } from '@app/persistence';
import { ConnectorPeer, startPeer } from '../support/connector-peers';
import { createTestDatabase } from '../support/database';
import { inputData } from '../support/http';
import { rawRequest } from '../support/raw-http';
import { eventually } from './load';
import { ServiceProcess } from './service-process';
import { freePort } from '../support/free-port';

const PASSWORD_CONTEXT = 'accounts.password';
const ACCOUNTS = 300;

/**
 * Scheduled rotation is exactly once per due time across instances, and crash-safe: two
 * instances rotate a group of 300 accounts on a real PostgreSQL (one that checks
 * passwords); one is SIGKILLed mid-run. The other finishes; every account is rotated once
 * for the due time (runs, audit and target agree) and every stored password logs in.
 */
describe('scheduled rotation: two instances, kill -9 mid-run', () => {
  let peer: ConnectorPeer;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let ds: DataSource;
  let dataDir: string;
  let token: string;
  let resourceId: number;
  let groupId: number;

  beforeAll(async () => {
    peer = await startPeer('postgresql');
    const url = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'vault-rotation-kill-'));
    const env = { DATABASE_URL: url, DATA_DIR: dataDir, DB_POOL_SIZE: '12', VERIFY_INTERVAL_MS: '0', ROTATION_TICK_MS: '200', ROTATION_CONCURRENCY: '4' };
    a = new ServiceProcess(await freePort(), env);
    await a.start();
    b = new ServiceProcess(await freePort(), env);
    await b.start();
    token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
    ds = createDataSource(url, 4);
    await ds.initialize();
    const created = await call(a, 'POST', '/restapi/json/v1/resources', {
      RESOURCENAME: 'fleet-db',
      RESOURCETYPE: peer.resourceType,
      DNSNAME: peer.target.host,
      ACCOUNTNAME: peer.admin.username,
      PASSWORD: peer.admin.password,
    });
    expect(created.result.status).toBe('Success');
    [{ id: resourceId }] = await ds.query(`SELECT id FROM resources WHERE name = 'fleet-db'`);
    const list = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const password = `Start-${i}-Xy9!pass`;
      list.push({ ACCOUNTNAME: await peer.createAccount(password), PASSWORD: password });
    }
    expect((await call(a, 'POST', `/restapi/json/v1/resources/${resourceId}/accounts`, { ACCOUNTLIST: list })).result.status).toBe('Success');
    expect((await call(a, 'PUT', `/restapi/json/v1/resources/${resourceId}/remotepasswordreset`, { ACCOUNTNAME: peer.admin.username, ...peer.config })).result.status).toBe('Success');
    const group = await call(a, 'POST', '/restapi/json/v1/resourcegroup', { critgroup: 'fleet', GROUPTYPE: 'static' });
    groupId = Number(group.Details.RESOURCEGROUPID);
    expect((await call(a, 'PUT', `/restapi/json/v1/resourcegroup/${groupId}/resources`, { RESOURCEIDS: [String(resourceId)] })).result.status).toBe('Success');
  }, 300_000);
  afterAll(async () => {
    await a?.kill();
    await b?.kill();
    await ds?.destroy();
    await peer?.stop();
  }, 60_000);

  async function call(to: ServiceProcess, method: string, path: string, details?: Record<string, unknown>) {
    const answer = await rawRequest(
      to.url,
      {
        method,
        path,
        headers: { AUTHTOKEN: token, ...(details ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
        body: details ? `INPUT_DATA=${encodeURIComponent(inputData(details))}` : undefined,
      },
      60_000,
    );
    if (!answer.json?.operation) throw new Error(`no envelope: HTTP ${answer.status}`);
    return answer.json.operation;
  }

  const done = async () => (await ds.query(`SELECT count(*)::int AS n FROM rotation_runs WHERE status = 'done'`))[0].n as number;

  it(`rotates each of ${ACCOUNTS + 1} accounts once for the due time, though an instance dies mid-run`, async () => {
    expect((await call(b, 'PUT', `/restapi/json/v1/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'days' })).result.status).toBe('Success');
    await ds.query('UPDATE rotation_schedules SET next_run = now() WHERE group_id = $1', [groupId]);
    // Killed while changes are in flight (pending passwords sealed, targets being changed).
    const inFlight = async () => (await ds.query('SELECT count(*)::int AS n FROM accounts WHERE pending_password IS NOT NULL'))[0].n as number;
    expect(await eventually(async () => (await done()) >= 40 && (await inFlight()) >= 4, 120_000, 20)).toBe(true);
    const beforeKill = await done();
    await a.kill();
    expect(await eventually(async () => (await ds.query(`SELECT 1 FROM rotation_runs WHERE status = 'due'`)).length === 0, 240_000, 200)).toBe(true);
    expect(await eventually(async () => (await ds.query('SELECT 1 FROM accounts WHERE pending_password IS NOT NULL')).length === 0, 60_000, 200)).toBe(true);

    const runs: { account_id: number; due_at: Date; status: string }[] = await ds.query('SELECT account_id, due_at, status FROM rotation_runs');
    expect(runs.length).toBe(ACCOUNTS + 1);
    expect(new Set(runs.map((r) => String(r.due_at))).size).toBe(1);
    expect(await ds.query(`SELECT account_id, status, attempts, message FROM rotation_runs WHERE status <> 'done'`)).toEqual([]);
    // Audit and runs agree: one Password Rotated row per account, none twice.
    const twice = await ds.query(`SELECT account_id, count(*)::int AS n FROM audit WHERE operation = 'Password Rotated' GROUP BY account_id HAVING count(*) <> 1`);
    expect(twice).toEqual([]);
    const [{ rotated }] = await ds.query(`SELECT count(DISTINCT account_id)::int AS rotated FROM audit WHERE operation = 'Password Rotated'`);
    expect(rotated).toBe(ACCOUNTS + 1);
    // And the target agrees: every stored password logs in.
    const keyring = new Keyring(ds, loadMasterKey(loadConfig({ DATA_DIR: dataDir })));
    await keyring.load();
    const failing: string[] = [];
    for (const row of await ds.query('SELECT name, password FROM accounts WHERE resource_id = $1', [resourceId])) {
      if (!(await peer.login(row.name, await keyring.openText(row.password, PASSWORD_CONTEXT)))) failing.push(row.name);
    }
    expect(failing).toEqual([]);
    const [{ committed, kept }] = await ds.query(`SELECT
      (SELECT count(*)::int FROM audit WHERE operation = 'Password Rotated' AND description LIKE 'Remote change settled%') AS committed,
      (SELECT count(*)::int FROM audit WHERE operation = 'Remote Change Settled') AS kept`);
    console.log(
      `rotation exactly once: ${ACCOUNTS + 1} accounts, ${beforeKill} done when one instance was killed with changes in flight; ` +
        `its pending changes settled: ${committed} committed (the target had the new password), ${kept} kept the old one and rotated afresh; 0 twice, 0 lost`,
    );
  }, 420_000);
});
