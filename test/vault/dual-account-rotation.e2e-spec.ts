import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { ConnectorPeer, startPeer } from '../support/connector-peers';
import { call, share, user, workflow } from './workflow-helpers';

const V1 = '/restapi/json/v1';
// 30 in the suite (about 30 s); DUAL_ROTATIONS=60 gives the longer run docs/rotation.md quotes.
const ROTATIONS = Number(process.env.DUAL_ROTATIONS ?? 30);

/**
 * Two-account rotation proven with a real consumer: every 100 ms it reads the pair's
 * credential through the API and logs in with it to a real PostgreSQL (a throwaway server
 * of this machine's PostgreSQL that checks passwords: the machine's own trusts every
 * loopback login) while the pair rotates about once a second. Not one login fails. The same
 * consumer on a single rotating account shows the failures the pair avoids (reported, not asserted).
 */
describe('two-account rotation (CONFIGURE DUAL ACCOUNT)', () => {
  let s: TestServices;
  let peer: ConnectorPeer;
  let blue: string;
  let green: string;
  let single: string;
  let resourceId: number;
  let ids: Record<string, number>;
  let groupId: number;

  const put = (path: string, details: Record<string, unknown>, token = s.adminToken) =>
    request(s.vaultUrl).put(`${V1}${path}`).set('AUTHTOKEN', token).type('form').send({ INPUT_DATA: inputData(details) });
  const read = async (aid: number) => (await request(s.vaultUrl).get(`${V1}/resources/${resourceId}/accounts/${aid}/password`).set('AUTHTOKEN', s.adminToken)).body.operation;
  const rotations = async (aid: number): Promise<number> =>
    (await s.dataSource.query(`SELECT count(*)::int AS n FROM rotation_runs WHERE account_id = $1 AND status = 'done'`, [aid]))[0].n;

  /** Reads and logs in every 100 ms until `enough` says stop; counts reads, failed logins, members seen. */
  async function consume(aid: number, enough: () => Promise<boolean>, deadlineMs: number) {
    const result = { reads: 0, failed: 0, members: new Set<string>(), failures: [] as string[] };
    const end = Date.now() + deadlineMs;
    while (!(await enough())) {
      if (Date.now() > end) throw new Error(`not enough rotations within ${deadlineMs} ms: ${JSON.stringify({ ...result, members: [...result.members] })}`);
      const started = Date.now();
      const op = await read(aid);
      const user = op.Details.ACCOUNTNAME ?? (aid === ids[single] ? single : '');
      result.reads++;
      result.members.add(user);
      if (!(await peer.login(user, op.Details.PASSWORD))) {
        result.failed++;
        result.failures.push(`${user} refused ${result.reads} reads in`);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - started))));
    }
    return result;
  }

  beforeAll(async () => {
    [s, peer] = await Promise.all([startTestServices({ ROTATION_TICK_MS: '100', ROTATION_CONCURRENCY: '2', DB_POOL_SIZE: '10' }), startPeer('postgresql')]);
    [blue, green, single] = [await peer.createAccount('Blue-Pass-word-1'), await peer.createAccount('Green-Pass-word-1'), await peer.createAccount('Single-Pass-word-1')];
    resourceId = (
      await createResource(s.vaultUrl, s.adminToken, {
        RESOURCENAME: 'pair-db',
        RESOURCETYPE: peer.resourceType,
        DNSNAME: peer.target.host,
        ACCOUNTNAME: peer.admin.username,
        PASSWORD: peer.admin.password,
      })
    ).resourceId;
    const added = await request(s.vaultUrl)
      .post(`${V1}/resources/${resourceId}/accounts`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({
        INPUT_DATA: inputData({
          ACCOUNTLIST: [
            { ACCOUNTNAME: blue, PASSWORD: 'Blue-Pass-word-1' },
            { ACCOUNTNAME: green, PASSWORD: 'Green-Pass-word-1' },
            { ACCOUNTNAME: single, PASSWORD: 'Single-Pass-word-1' },
          ],
        }),
      });
    expect(added.body.operation.result.status).toBe('Success');
    const list = await request(s.vaultUrl).get(`${V1}/resources/${resourceId}/accounts`).set('AUTHTOKEN', s.adminToken);
    ids = Object.fromEntries(list.body.operation.Details['ACCOUNT LIST'].map((a: Record<string, string>) => [a['ACCOUNT NAME'], Number(a['ACCOUNT ID'])]));
    expect((await put(`/resources/${resourceId}/remotepasswordreset`, { ACCOUNTNAME: peer.admin.username, ...peer.config })).body.operation.result.status).toBe('Success');
    const made = await request(s.vaultUrl)
      .post(`${V1}/resourcegroup`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ critgroup: 'pair-dbs', GROUPTYPE: 'static' }) });
    groupId = Number(made.body.operation.Details.RESOURCEGROUPID);
    await put(`/resourcegroup/${groupId}/resources`, { RESOURCEIDS: [String(resourceId)] });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await peer?.stop();
  });

  it('pairs two accounts of one resource, and refuses what cannot be a pair', async () => {
    expect((await put(`/resources/${resourceId}/accounts/${ids[blue]}/dualaccount`, { PARTNERACCOUNTNAME: blue, GRACEMINUTES: '1' })).body.operation.result).toEqual({
      status: 'Failed',
      message: 'PARTNERACCOUNTNAME must name another account of the resource',
    });
    expect((await put(`/resources/${resourceId}/accounts/${ids[blue]}/dualaccount`, { PARTNERACCOUNTNAME: 'nobody' , GRACEMINUTES: '1'})).body.operation.result).toEqual({
      status: 'Failed',
      message: 'No account named nobody in resource pair-db',
    });
    const res = await put(`/resources/${resourceId}/accounts/${ids[blue]}/dualaccount`, { PARTNERACCOUNTNAME: green, GRACEMINUTES: '0.01' });
    expect(res.body.operation).toMatchObject({
      name: 'CONFIGURE DUAL ACCOUNT',
      result: { status: 'Success', message: `Account ${blue} is now a dual account with ${green}` },
      Details: { DUALACCOUNT: 'true', PARTNERACCOUNTNAME: green, CURRENTACCOUNTNAME: blue, GRACEMINUTES: '0.01' },
    });
    expect((await put(`/resources/${resourceId}/accounts/${ids[single]}/dualaccount`, { PARTNERACCOUNTNAME: green, GRACEMINUTES: '1' })).body.operation.result).toEqual({
      status: 'Failed',
      message: `Account ${green} is already in a dual account pair`,
    });
    const op = await read(ids[blue]);
    expect(op.Details).toEqual({ PASSWORD: 'Blue-Pass-word-1', ACCOUNTNAME: blue });
    // The audit names the member whose password went out (quick read path).
    const [readRow] = await s.dataSource.query(`SELECT account_name, description FROM audit WHERE operation = 'Password Retrieved' ORDER BY id DESC LIMIT 1`);
    expect(readRow).toEqual({ account_name: blue, description: `Current member of the pair: ${blue}.` });
    const [audit] = await s.dataSource.query(`SELECT account_name, description FROM audit WHERE operation = 'Dual Account Configured'`);
    expect(audit).toEqual({ account_name: blue, description: `Paired with ${green}, grace 0.01 minutes` });
  });

  it(`a consumer reading every 100 ms never holds a password that fails, over ${ROTATIONS} rotations`, async () => {
    const res = await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'true', INTERVAL: '0.0167', INTERVALUNIT: 'minutes' });
    expect(res.body.operation.result.status).toBe('Success');
    // The single account rotates too (it is in the group): its consumer runs alongside, for the report.
    const [pair, lone] = await Promise.all([
      consume(ids[blue], async () => (await rotations(ids[blue])) >= ROTATIONS, 240_000),
      consume(ids[single], async () => (await rotations(ids[blue])) >= ROTATIONS, 240_000),
    ]);
    await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'false' });
    // eslint-disable-next-line no-console
    console.log(
      `two-account rotation: ${pair.reads} reads, ${pair.failed} failed logins over ${await rotations(ids[blue])} rotations; ` +
        `single account: ${lone.reads} reads, ${lone.failed} failed logins over ${await rotations(ids[single])} rotations`,
    );
    expect(pair.failures).toEqual([]);
    expect([...pair.members].sort()).toEqual([blue, green].sort());
    const shown = await request(s.vaultUrl).get(`${V1}/resources/${resourceId}/accounts/${ids[blue]}/dualaccount`).set('AUTHTOKEN', s.adminToken);
    expect(shown.body.operation.Details).toMatchObject({ DUALACCOUNT: 'true', PARTNERACCOUNTNAME: green });
    // The partner is rotated as the pair's member, never on its own.
    expect(await rotations(ids[green])).toBe(0);
  }, 300_000);

  it('does not rotate a pair while its partner is under an exclusive check-out, and does right after the check-in', async () => {
    const w = workflow(s.vaultUrl);
    const owner = { id: 0, token: s.adminToken, name: 'admin' };
    const partnerId = ids[green];
    // Access control on the partner (the head stays uncontrolled: reads of the pair then need a check-out of it).
    expect((await call(s.vaultUrl, 'put', `${V1}/resources/${resourceId}/accounts/${partnerId}/accesscontrol`, s.adminToken, {})).result.status).toBe('Success');
    const alice = await user(s);
    await share(s, resourceId, alice.id);
    expect((await w.request(alice, partnerId, { REASON: 'maintenance' })).result.status).toBe('Success');
    expect((await w.approve(owner, partnerId, alice.id)).result.status).toBe('Success');
    expect((await w.checkout(alice, partnerId)).result.status).toBe('Success');
    const before = await rotations(ids[blue]);
    // The pair's grace is long over; the schedule is due now.
    await s.dataSource.query(`UPDATE accounts SET dual_switched_at = now() - interval '1 hour' WHERE id = $1`, [ids[blue]]);
    await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'days' });
    await s.dataSource.query('UPDATE rotation_schedules SET next_run = now() WHERE group_id = $1', [groupId]);
    const waiting = async () =>
      (await s.dataSource.query(`SELECT 1 FROM rotation_runs WHERE account_id = $1 AND status = 'due' AND message = 'Waiting for the check-in of an exclusive check-out'`, [ids[blue]])).length === 1;
    const end = Date.now() + 30_000;
    while (!(await waiting())) {
      if (Date.now() > end) throw new Error('the pair did not wait for the check-in');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await rotations(ids[blue])).toBe(before);
    expect((await w.checkin(alice, partnerId, alice.id)).result.status).toBe('Success');
    const after = Date.now() + 30_000;
    while ((await rotations(ids[blue])) !== before + 1) {
      if (Date.now() > after) throw new Error('the pair was not rotated after the check-in');
      await new Promise((r) => setTimeout(r, 100));
    }
    await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'false' });
  }, 120_000);
});
