import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { verifyAuditChain } from '@app/audit';
import { loadConfig } from '@app/config';
import { Keyring, loadMasterKey } from '@app/crypto';
import { DATABASE_UNAVAILABLE_MESSAGE } from '@app/http';
import { createDataSource } from '@app/persistence';
import { createApiUser } from '@app/server';
import { inputData } from '../support/http';
import { rawRequest } from '../support/raw-http';
import { doubleCheckouts, DrillAccount, DrillUsers, driveDrill, Sent } from './drill-load';
import { eventually, sleep } from './load';
import { PatroniCluster, patroniAvailable, PatroniNode } from './patroni-cluster';
import { ServiceProcess } from './service-process';
import { freePort } from '../support/free-port';

const PASSWORD_CONTEXT = 'accounts.password';
const CHANGERS = 6;
const CHECKOUT_ACCOUNTS = 3;
const CHECKOUT_MINUTES = 0.1;

/**
 * The failover drill: two PostgreSQL nodes under Patroni (etcd, synchronous_mode_strict), two
 * vault instances on the multi-host URL under reads, changes and check-out cycles. First the
 * leader's postmaster is killed (-9) and Patroni promotes the standby; then a planned
 * `patronictl switchover` moves the leader back. For each: nothing acknowledged is lost, no
 * account is checked out twice, reads succeed again within 10 s of the new leader taking
 * writes (no instance restarted), every answer meanwhile is a success or a 503, the sealer and
 * the sweeper carry on; no instance ever holds a session on a node in recovery, and the old
 * leader rejoins as a replica. Then the audit chain verifies.
 */
describe('failover drill (Patroni, synchronous replication)', () => {
  const cluster = new PatroniCluster();
  const instances: ServiceProcess[] = [];
  let dataDir: string;
  let ds: DataSource;
  let users: DrillUsers;
  const changeAccounts: DrillAccount[] = [];
  const checkoutAccounts: DrillAccount[] = [];
  const allSent: Sent[] = [];
  const splitBrain: string[] = [];
  let sampler: NodeJS.Timeout | undefined;
  const figures: string[] = [];

  beforeAll(async () => {
    // scripts/test-prereqs.sh installs them; a missing drill must fail, not pass unseen.
    if (!patroniAvailable()) throw new Error('Patroni and etcd are needed (Debian packages patroni, etcd-server): run scripts/test-prereqs.sh as root');
    await cluster.start();
    await cluster.query(cluster.nodes[0], 'CREATE DATABASE vault', 'postgres');
    await cluster.query(cluster.nodes[0], 'CREATE DATABASE drill', 'postgres');
    await cluster.query(cluster.nodes[0], 'CREATE TABLE probe (at timestamptz DEFAULT now())', 'drill');
    dataDir = mkdtempSync(join(tmpdir(), 'vault-drill-'));
    const env = { DATABASE_URL: cluster.url(), DATA_DIR: dataDir, SWEEP_INTERVAL_MS: '300', DB_POOL_SIZE: '6', DB_CONNECT_TIMEOUT_MS: '2000' };
    const first = new ServiceProcess(await freePort(), env);
    instances.push(first);
    await first.start();
    const adminToken = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
    ds = createDataSource(cluster.url(), 4);
    await ds.initialize();
    const [org] = await ds.query(`SELECT id FROM organizations WHERE name = 'Default'`);
    const requesters = [];
    for (const name of ['drill-a', 'drill-b']) {
      const user = await createApiUser(ds, { orgId: org.id, username: name, role: 'Password User' });
      requesters.push({ token: user.token, userId: user.userId });
    }
    users = { adminToken, requesters };
    for (let i = 0; i < CHANGERS + CHECKOUT_ACCOUNTS; i++) {
      const created = await call(first.url, adminToken, 'POST', '/restapi/json/v1/resources', { RESOURCENAME: `drill-${i}`, ACCOUNTNAME: 'root', PASSWORD: `Start-${i}-Xy9!pass`, RESOURCETYPE: 'Linux' });
      expect(created.status).toBe('Success');
    }
    const rows: { rid: number; aid: number }[] = await ds.query(
      `SELECT r.id AS rid, a.id AS aid FROM resources r JOIN accounts a ON a.resource_id = r.id WHERE r.name LIKE 'drill-%' ORDER BY r.id`,
    );
    for (const [i, row] of rows.entries()) {
      if (i < CHANGERS) {
        changeAccounts.push(row);
        continue;
      }
      const ac = await call(first.url, adminToken, 'PUT', `/restapi/json/v1/resources/${row.rid}/accounts/${row.aid}/accesscontrol`, {
        APPROVAL_REQUIRED: 'false', CHECKOUT_MINUTES: String(CHECKOUT_MINUTES), RESET_AFTER_CHECKIN: 'false',
      });
      expect(ac.status).toBe('Success');
      for (const r of requesters) await ds.query(`INSERT INTO shares (resource_id, user_id, access_type) VALUES ($1, $2, 'view')`, [row.rid, r.userId]);
      checkoutAccounts.push(row);
    }
    const second = new ServiceProcess(await freePort(), env);
    instances.push(second);
    await second.start();
    sampler = setInterval(() => void sampleSessions(), 250);
  }, 300_000);

  afterAll(async () => {
    clearInterval(sampler);
    for (const i of instances) await i.kill().catch(() => undefined);
    await ds?.destroy().catch(() => undefined);
    await cluster.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (figures.length) console.log(`failover drill:\n${figures.join('\n')}`);
  }, 120_000);

  /** No session of an instance on a node that is in recovery (one sample every 250 ms). */
  async function sampleSessions(): Promise<void> {
    for (const node of cluster.nodes) {
      const rows = await cluster
        .query<{ standby: boolean; n: number }>(node, `SELECT pg_is_in_recovery() AS standby, count(*) FILTER (WHERE application_name = 'credential-vault')::int AS n FROM pg_stat_activity`, 'postgres')
        .catch(() => []);
      if (rows[0]?.standby && rows[0].n > 0) splitBrain.push(`${node.name} in recovery held ${rows[0].n} instance sessions at ${Date.now()}`);
    }
  }

  /** Until a plain commit on the node returns (strict synchronous mode: once a standby confirms it). */
  async function writesAccepted(node: PatroniNode, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const client = new Client({ connectionString: cluster.nodeUrl(node, 'drill'), connectionTimeoutMillis: 2000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('INSERT INTO probe DEFAULT VALUES');
        return Date.now();
      } catch {
        await sleep(100);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw new Error(`${node.name} took no write within ${timeoutMs} ms`);
  }

  async function drill(name: string, event: (leader: PatroniNode) => Promise<void>): Promise<PatroniNode> {
    const oldLeader = (await cluster.leader())!;
    const load = driveDrill(instances, users, changeAccounts, checkoutAccounts);
    expect(await eventually(async () => load.acked('change') >= 60 && load.acked('checkout') >= 6, 120_000, 100)).toBe(true);
    const eventAt = Date.now();
    await event(oldLeader);
    let newLeader: PatroniNode | undefined;
    expect(await eventually(async () => (newLeader = await cluster.leader()) !== undefined && newLeader !== oldLeader, 60_000, 100)).toBe(true);
    const promotedAt = Date.now();
    const writableAt = await writesAccepted(newLeader!, 60_000);
    const firstRead = () => load.sent.filter((s) => s.kind === 'read' && s.status === 'Success' && s.doneAt >= writableAt).sort((a, b) => a.doneAt - b.doneAt)[0];
    expect(await eventually(async () => firstRead() !== undefined, 30_000, 50)).toBe(true);
    const readAt = firstRead().doneAt;
    // More load on the new leader, then stop.
    const ackedThen = load.acked();
    expect(await eventually(async () => load.acked() >= ackedThen + 150, 120_000, 100)).toBe(true);
    const sent = await load.stop();
    allSent.push(...sent);

    const reads = sent.filter((s) => s.kind === 'read' && s.status === 'Success').map((s) => s.doneAt).sort((a, b) => a - b);
    const gap = Math.max(...reads.slice(1).map((t, i) => t - reads[i]));
    const tally = sent.reduce<Record<string, number>>((c, s) => ((c[`${s.http} ${s.status}`] = (c[`${s.http} ${s.status}`] ?? 0) + 1), c), {});
    figures.push(
      `${name}: promoted ${promotedAt - eventAt} ms after the event, writes accepted after ${writableAt - eventAt} ms, ` +
        `first successful read ${readAt - writableAt} ms after that; longest time without a successful read ${gap} ms; ` +
        `answers ${JSON.stringify(tally)}; acknowledged changes ${sent.filter((s) => s.kind === 'change' && s.status === 'Success').length}, check-outs ${sent.filter((s) => s.kind === 'checkout' && s.status === 'Success').length}`,
    );

    // Reads back within 10 s of the new leader taking writes, with no instance restarted.
    expect(readAt - writableAt).toBeLessThanOrEqual(10_000);
    // Every answer meanwhile: a success, a refusal of the workflow, or 503 with the plain message; never a 500.
    expect(sent.filter((s) => s.http !== 200 && s.http !== 503)).toEqual([]);
    expect(sent.filter((s) => s.http === 503 && s.message !== DATABASE_UNAVAILABLE_MESSAGE)).toEqual([]);
    expect(sent.filter((s) => /internal/i.test(s.message))).toEqual([]);
    await verifyNothingLost(sent);
    await verifyBackgroundWork();
    return oldLeader;
  }

  async function keyring(): Promise<Keyring> {
    const k = new Keyring(ds, loadMasterKey(loadConfig({ DATA_DIR: dataDir })));
    await k.load();
    return k;
  }

  async function verifyNothingLost(sent: Sent[]): Promise<void> {
    const k = await keyring();
    // Every acknowledged change is there: the account's password or one of its history.
    for (const { aid } of changeAccounts) {
      const stored: { password: Buffer }[] = await ds.query(`SELECT password FROM accounts WHERE id = $1 UNION ALL SELECT password FROM password_history WHERE account_id = $1`, [aid]);
      const present = new Set(await Promise.all(stored.map((r) => k.openText(r.password, PASSWORD_CONTEXT))));
      const acked = sent.filter((s) => s.kind === 'change' && s.aid === aid && s.status === 'Success').map((s) => s.wrote!);
      expect(acked.filter((w) => !present.has(w))).toEqual([]);
    }
    // No account checked out twice, and every acknowledged check-out is on record.
    expect(doubleCheckouts(sent, CHECKOUT_MINUTES * 60_000)).toEqual([]);
    for (const { aid } of checkoutAccounts) {
      const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM password_requests WHERE account_id = $1 AND checked_out_at IS NOT NULL`, [aid]);
      expect(n).toBeGreaterThanOrEqual(allSent.filter((s) => s.kind === 'checkout' && s.aid === aid && s.status === 'Success').length);
    }
  }

  /** The sealer seals what was written on the new leader; the sweeper expires and checks in there. */
  async function verifyBackgroundWork(): Promise<void> {
    const [{ top }] = await ds.query(`SELECT max(id)::text AS top FROM audit`);
    expect(await eventually(async () => BigInt((await ds.query(`SELECT last_id::text AS l FROM audit_chain WHERE id = 1`))[0].l) >= BigInt(top), 30_000)).toBe(true);
    const [admin] = await ds.query(`SELECT id FROM users WHERE username = 'drill-a'`);
    const [due] = await ds.query(
      `INSERT INTO password_requests (account_id, requester_id, status, expires_at) VALUES ($1, $2, 'waiting', now() + interval '1 second') RETURNING id`,
      [changeAccounts[0].aid, admin.id],
    );
    expect(await eventually(async () => (await ds.query(`SELECT status FROM password_requests WHERE id = $1`, [due.id]))[0].status === 'expired', 30_000)).toBe(true);
    const overdue = async () => (await ds.query(`SELECT count(*)::int AS n FROM password_requests WHERE status = 'checked_out' AND checkout_until < now() - interval '2 seconds'`))[0].n;
    expect(await eventually(async () => (await overdue()) === 0, 30_000)).toBe(true);
  }

  /** The old leader, restarted, follows the new one as a replica, and no instance writes to it. */
  async function verifyRejoins(old: PatroniNode): Promise<void> {
    await cluster.stopNode(old);
    await cluster.startNode(old);
    expect(await eventually(async () => (await cluster.role(old)) === 'replica', 90_000, 250)).toBe(true);
    expect(await cluster.waitSynchronous(90_000)).toBe(true);
    const [state] = await cluster.query<{ standby: boolean; n: number }>(old, `SELECT pg_is_in_recovery() AS standby, (SELECT count(*)::int FROM pg_stat_activity WHERE application_name = 'credential-vault') AS n`, 'postgres');
    expect(state).toEqual({ standby: true, n: 0 });
    // It has what the instances wrote on the new leader (replicated, not written to it).
    const [{ top }] = await ds.query(`SELECT max(id)::text AS top FROM audit`);
    expect(await eventually(async () => (await cluster.query<{ n: string }>(old, `SELECT max(id)::text AS n FROM audit`))[0].n === top, 30_000)).toBe(true);
  }

  it('kill -9 of the leader postmaster: Patroni promotes the standby, nothing is lost', async () => {
    const old = await drill('kill -9 of the leader', async (leader) => void cluster.killPostmaster(leader));
    await verifyRejoins(old);
  }, 600_000);

  it('patronictl switchover (planned): nothing is lost, the old leader follows', async () => {
    const old = await drill('patronictl switchover', async (leader) => void (await cluster.switchover(cluster.nodes.find((n) => n !== leader)!)));
    await verifyRejoins(old);
  }, 600_000);

  it('no instance ever held a session on a node in recovery, and the audit chain verifies', async () => {
    clearInterval(sampler);
    expect(splitBrain).toEqual([]);
    for (const instance of instances) await instance.stop();
    const report = await verifyAuditChain(ds, await keyring());
    expect(report.problem).toBeUndefined();
    expect(report.ok).toBe(true);
    figures.push(`audit chain verified: ${report.checked} rows`);
  }, 300_000);
});

async function call(base: string, token: string, method: string, path: string, details?: Record<string, unknown>): Promise<{ status: string; message: string }> {
  const answer = await rawRequest(base, {
    method,
    path,
    headers: { AUTHTOKEN: token, ...(details ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    body: details ? `INPUT_DATA=${encodeURIComponent(inputData(details))}` : undefined,
  }, 60_000);
  const result = answer.json?.operation?.result ?? answer.json?.result;
  if (!result) throw new Error(`no envelope: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  return { status: result.status, message: result.message };
}
