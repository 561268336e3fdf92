import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { call, share, TestUser, user } from './workflow-helpers';

const V1 = '/restapi/json/v1';

/**
 * A read of a pair's head answers its current member, so the member's access control must
 * hold on that read. CONFIGURE DUAL ACCOUNT refuses a controlled partner of an uncontrolled
 * head, but access control can be put on the partner (or taken off the head) after pairing:
 * then every reader of the head read the partner's password with no check-out.
 */
describe("a pair read never goes around its current member's access control", () => {
  let s: TestServices;
  let bob: TestUser;
  let resourceId: number;
  let headId: number;
  let partnerId: number;

  const read = (via: 'lean' | 'controller' | 'a2a', token: string, aid: number) => {
    const req =
      via === 'a2a'
        ? request(s.vaultUrl).get(`${V1}/resources/getResourceAccountDetails`).query({ INPUT_DATA: inputData({ RESOURCEID: String(resourceId), ACCOUNTID: String(aid) }) })
        : request(s.vaultUrl).get(`${V1}${via === 'controller' ? '/' : ''}/resources/${resourceId}/accounts/${aid}/password`);
    return req.set('AUTHTOKEN', token).then((res) => res.body.operation);
  };

  beforeAll(async () => {
    s = await startTestServices();
    const r = await createResource(s.vaultUrl, s.adminToken, { ACCOUNTNAME: 'head', PASSWORD: 'Head-Pass-word-1' });
    resourceId = r.resourceId;
    headId = r.accountId;
    const added = await call(s.vaultUrl, 'post', `${V1}/resources/${resourceId}/accounts`, s.adminToken, {
      ACCOUNTLIST: [{ ACCOUNTNAME: 'partner', PASSWORD: 'Partner-Pass-word-1' }],
    });
    expect(added.result.status).toBe('Success');
    [{ id: partnerId }] = await s.dataSource.query(`SELECT id FROM accounts WHERE resource_id = $1 AND name = 'partner'`, [resourceId]);
    bob = await user(s, 'Password User', 'pair-reader');
    await share(s, resourceId, bob.id, 'view');
    const paired = await call(s.vaultUrl, 'put', `${V1}/resources/${resourceId}/accounts/${headId}/dualaccount`, s.adminToken, { PARTNERACCOUNTNAME: 'partner', GRACEMINUTES: '1' });
    expect(paired.result.status).toBe('Success');
    // After pairing, the partner is put under access control (the head is not).
    const controlled = await call(s.vaultUrl, 'put', `${V1}/resources/${resourceId}/accounts/${partnerId}/accesscontrol`, s.adminToken, {
      APPROVAL_REQUIRED: 'true',
      ADMINS_APPROVE: 'true',
      EXCLUSIVE: 'true',
      CHECKOUT_MINUTES: 30,
    });
    expect(controlled.result.status).toBe('Success');
    // As a rotation of the pair leaves it: the partner is the current member.
    await s.dataSource.query('UPDATE accounts SET dual_current_id = $2, dual_switched_at = now() WHERE id = $1', [headId, partnerId]);
  }, 60_000);
  afterAll(async () => s?.close());

  it('the partner itself is refused without a check-out', async () => {
    expect((await read('lean', bob.token, partnerId)).Details).toEqual({ PASSWORD: '[Request]' });
  });

  it.each(['lean', 'controller', 'a2a'] as const)('reading the head (%s) is refused as the partner is, and audited as a refusal', async (via) => {
    const op = await read(via, bob.token, headId);
    expect(JSON.stringify(op)).not.toContain('Partner-Pass-word-1');
    expect(op.result.status).toBe('Failed');
    const [row] = await s.dataSource.query(`SELECT operation, outcome, description FROM audit WHERE actor_id = $1 ORDER BY id DESC LIMIT 1`, [bob.id]);
    expect(row).toEqual({ operation: 'Password Retrieval Denied', outcome: 'Failed', description: 'refused: CHECKOUT' });
  });

  it('a check-out of the partner lets its holder read it through the head', async () => {
    await s.dataSource.query(
      `INSERT INTO password_requests (account_id, requester_id, status, expires_at, checked_out_at, checkout_until)
       VALUES ($1, $2, 'checked_out', now() + interval '1 hour', now(), now() + interval '1 hour')`,
      [partnerId, bob.id],
    );
    const op = await read('lean', bob.token, headId);
    expect(op.Details).toEqual({ PASSWORD: 'Partner-Pass-word-1', ACCOUNTNAME: 'partner' });
  });

  it('an administrator with no check-out is refused too; with the pair dissolved the head answers itself', async () => {
    expect((await read('lean', s.adminToken, headId)).result.status).toBe('Failed');
    await call(s.vaultUrl, 'put', `${V1}/resources/${resourceId}/accounts/${headId}/dualaccount`, s.adminToken, { PARTNERACCOUNTNAME: '' });
    expect((await read('lean', s.adminToken, headId)).Details).toEqual({ PASSWORD: 'Head-Pass-word-1' });
  });
});

/**
 * With head and partner both under access control, the head's check-out opens the pair; but
 * a partner another user holds exclusively (or that is being reset after its check-in) is
 * in use, and the head's reader may not have it either.
 */
describe("a pair read respects an exclusive check-out of its current member", () => {
  let s: TestServices;
  let alice: TestUser;
  let bob: TestUser;
  let resourceId: number;
  let headId: number;
  let partnerId: number;

  const readHead = (token: string) => request(s.vaultUrl).get(`${V1}/resources/${resourceId}/accounts/${headId}/password`).set('AUTHTOKEN', token).then((res) => res.body.operation);
  const checkedOut = (aid: number, uid: number, status = 'checked_out') =>
    s.dataSource.query(
      `INSERT INTO password_requests (account_id, requester_id, status, expires_at, checked_out_at, checkout_until, exclusive)
       VALUES ($1, $2, $3, now() + interval '1 hour', now(), now() + interval '1 hour', true) RETURNING id`,
      [aid, uid, status],
    );

  beforeAll(async () => {
    s = await startTestServices();
    const r = await createResource(s.vaultUrl, s.adminToken, { ACCOUNTNAME: 'head', PASSWORD: 'Head-Pass-word-1' });
    resourceId = r.resourceId;
    headId = r.accountId;
    await call(s.vaultUrl, 'post', `${V1}/resources/${resourceId}/accounts`, s.adminToken, { ACCOUNTLIST: [{ ACCOUNTNAME: 'partner', PASSWORD: 'Partner-Pass-word-1' }] });
    [{ id: partnerId }] = await s.dataSource.query(`SELECT id FROM accounts WHERE resource_id = $1 AND name = 'partner'`, [resourceId]);
    [alice, bob] = [await user(s, 'Password User', 'holder'), await user(s, 'Password User', 'pair-reader')];
    await share(s, resourceId, alice.id, 'view');
    await share(s, resourceId, bob.id, 'view');
    for (const aid of [headId, partnerId]) {
      const op = await call(s.vaultUrl, 'put', `${V1}/resources/${resourceId}/accounts/${aid}/accesscontrol`, s.adminToken, { APPROVAL_REQUIRED: 'true', EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30 });
      expect(op.result.status).toBe('Success');
    }
    const paired = await call(s.vaultUrl, 'put', `${V1}/resources/${resourceId}/accounts/${headId}/dualaccount`, s.adminToken, { PARTNERACCOUNTNAME: 'partner', GRACEMINUTES: '1' });
    expect(paired.result.status).toBe('Success');
    await s.dataSource.query('UPDATE accounts SET dual_current_id = $2, dual_switched_at = now() WHERE id = $1', [headId, partnerId]);
    await checkedOut(headId, bob.id);
  }, 60_000);
  afterAll(async () => s?.close());

  it("the head's check-out reads the current member while nobody holds it", async () => {
    expect((await readHead(bob.token)).Details).toEqual({ PASSWORD: 'Partner-Pass-word-1', ACCOUNTNAME: 'partner' });
  });

  it.each(['checked_out', 'resetting'])("a member held by another user (%s) is in use for the head's reader", async (status) => {
    const [{ id }] = await checkedOut(partnerId, alice.id, status);
    try {
      const op = await readHead(bob.token);
      expect(JSON.stringify(op)).not.toContain('Partner-Pass-word-1');
      expect(op.Details).toEqual({ PASSWORD: '[ In use ]' });
      const [row] = await s.dataSource.query(`SELECT operation, description FROM audit WHERE actor_id = $1 ORDER BY id DESC LIMIT 1`, [bob.id]);
      expect(row).toEqual({ operation: 'Password Retrieval Denied', description: 'refused: IN_USE' });
    } finally {
      await s.dataSource.query('DELETE FROM password_requests WHERE id = $1', [id]);
    }
  });
});
