import { Keyring } from '@app/crypto';
import { verifyAuditChain } from '@app/audit';
import { DATABASE_UNAVAILABLE_MESSAGE } from '@app/http';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { rawRequest } from '../support/raw-http';
import { eventually, Op, sleep, startLoad } from './load';
import { ThrowawayPostgres } from './throwaway-postgres';

const WORKERS = 6;
const OUTAGE_MS = 10_000;
const CONNECT_TIMEOUT_MS = 2000;

/**
 * PostgreSQL stopped for 10 s under load, then started again: the services answer promptly
 * with 503 (never a hang, a 500 or a crash), release no password without its audit row, and
 * recover by themselves; the sweeper and the audit sealer carry on. On a PostgreSQL server
 * of the test's own.
 */
describe('PostgreSQL goes away and comes back', () => {
  const pg = new ThrowawayPostgres();
  let s: TestServices;
  const accounts: { rid: number; aid: number }[] = [];

  beforeAll(async () => {
    await pg.start();
    s = await startTestServices({ SWEEP_INTERVAL_MS: '200', DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), DB_POOL_SIZE: '4' }, pg.url);
    for (let w = 0; w < WORKERS; w++) {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: `outage-${w}`, ACCOUNTNAME: 'root' });
      accounts.push({ rid: r.resourceId, aid: r.accountId });
    }
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await pg.destroy();
  });

  it('answers 503 promptly while it is away, leaks nothing, and recovers without a restart', async () => {
    // Work that falls due during the outage: a request that expires in 3 s.
    const [admin] = await s.dataSource.query(`SELECT id FROM users ORDER BY id LIMIT 1`);
    const [due] = await s.dataSource.query(
      `INSERT INTO password_requests (account_id, requester_id, status, expires_at) VALUES ($1, $2, 'waiting', now() + interval '3 seconds') RETURNING id`,
      [accounts[0].aid, admin.id],
    );
    let counter = 0;
    const opsOf = (w: number): Op[] => {
      const { rid, aid } = accounts[w];
      const base = `/restapi/json/v1/resources/${rid}/accounts/${aid}`;
      return [
        { name: 'read', method: 'GET', path: `${base}/password` },
        {
          name: 'change', method: 'PUT', path: `${base}/password`,
          body: () => {
            const wrote = `Outage-${w}-${++counter}-Xy9!`;
            return { text: `INPUT_DATA=${encodeURIComponent(inputData({ NEWPASSWORD: wrote, RESETTYPE: 'LOCAL', REASON: 'outage test' }))}`, wrote };
          },
        },
        {
          name: 'create', method: 'POST', path: '/restapi/json/v1/resources',
          body: () => ({ text: `INPUT_DATA=${encodeURIComponent(inputData({ RESOURCENAME: `o-${w}-${++counter}`, ACCOUNTNAME: 'a', PASSWORD: 'Pw-123456789-Xy!', RESOURCETYPE: 'Linux' }))}` }),
        },
        { name: 'health', method: 'GET', path: '/health' },
      ];
    };
    const load = startLoad(s.vaultUrl, s.adminToken, opsOf, WORKERS);
    await sleep(2000);

    load.setPhase('down');
    await pg.stop();
    const pkiHealth = await rawRequest(s.pkiUrl, { method: 'GET', path: '/health' });
    await sleep(OUTAGE_MS);

    load.setPhase('restarting');
    await pg.start();
    expect(await eventually(async () => (await rawRequest(s.vaultUrl, { method: 'GET', path: '/health' })).status === 200)).toBe(true);
    load.setPhase('after');
    await sleep(3000);
    const outcomes = await load.stop();

    // Never a 500, never a request without an answer (the process did not die).
    expect(outcomes.filter((o) => o.http >= 500 && o.http !== 503)).toEqual([]);
    expect(outcomes.filter((o) => o.status === 'no answer')).toEqual([]);
    // While it was away: 503, a Failed envelope, a plain message, and promptly (generous bound:
    // the connect timeout plus slack for a loaded machine).
    const down = outcomes.filter((o) => o.phase === 'down');
    expect(down.length).toBeGreaterThan(WORKERS);
    const downFailures = down.filter((o) => o.http === 503);
    expect(downFailures.length).toBeGreaterThan(0);
    for (const o of downFailures) {
      if (o.op === 'health') continue;
      expect({ status: o.status, message: o.message }).toEqual({ status: 'Failed', message: DATABASE_UNAVAILABLE_MESSAGE });
    }
    expect(down.filter((o) => o.op === 'health' && o.http === 503).length).toBeGreaterThan(0);
    expect(pkiHealth.status).toBe(503);
    expect(Math.max(...down.map((o) => o.ms))).toBeLessThan(CONNECT_TIMEOUT_MS + 15_000);
    // Back: every kind of request succeeds again, without a restart.
    const after = outcomes.filter((o) => o.phase === 'after');
    for (const op of ['read', 'change', 'create', 'health']) expect(after.filter((o) => o.op === op && (o.status === 'Success' || o.http === 200)).length).toBeGreaterThan(0);

    // No password left without its audit row.
    const reads = outcomes.filter((o) => o.op === 'read' && o.status === 'Success').length;
    const [{ n: audited }] = await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE operation = 'Password Retrieved'`);
    expect(audited).toBeGreaterThanOrEqual(reads);
    // Every account holds the last change its worker saw acknowledged.
    for (let w = 0; w < WORKERS; w++) {
      const last = outcomes.filter((o) => o.worker === w && o.op === 'change').pop()!;
      expect(last.status).toBe('Success');
      const read = await rawRequest(s.vaultUrl, { method: 'GET', path: `/restapi/json/v1/resources/${accounts[w].rid}/accounts/${accounts[w].aid}/password`, headers: { AUTHTOKEN: s.adminToken } });
      expect(read.json.operation.Details.PASSWORD).toBe(last.wrote);
    }

    // Background work resumed: the request that fell due during the outage is expired, and
    // the sealer seals what was written after it.
    expect(await eventually(async () => (await s.dataSource.query(`SELECT status FROM password_requests WHERE id = $1`, [due.id]))[0].status === 'expired')).toBe(true);
    const [{ head }] = await s.dataSource.query(`SELECT max(id)::bigint AS head FROM audit`);
    expect(await eventually(async () => Number((await s.dataSource.query(`SELECT last_id FROM audit_chain WHERE id = 1`))[0].last_id) >= Number(head))).toBe(true);
    expect((await verifyAuditChain(s.dataSource, s.vault.get(Keyring))).ok).toBe(true);
    console.log(
      `outage: ${outcomes.length} requests; while away ${down.length} answered (${downFailures.length} × 503), slowest ${Math.max(...down.map((o) => o.ms))} ms`,
    );
  }, 240_000);
});
