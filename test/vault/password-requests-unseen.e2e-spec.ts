import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { createOrgWithAdmin } from './users-orgs';
import { controlledResource, share, TestUser, user, workflow } from './workflow-helpers';

// An account id no organisation has: what "does not exist" answers.
const MISSING_ACCOUNT = 999_999_999;

interface Answer {
  http: number;
  body: unknown;
}

/**
 * Every password-request operation answers a caller who may not see the account (another
 * organisation, a user of the same organisation without a share) exactly as it answers an
 * account that does not exist, whatever state the request is in.
 */
describe('password requests: one answer for what the caller may not see', () => {
  let s: TestServices;
  let w: ReturnType<typeof workflow>;
  let owner: TestUser;
  let alice: TestUser;
  let outsiders: Record<string, TestUser>;

  beforeAll(async () => {
    s = await startTestServices();
    w = workflow(s.vaultUrl);
    owner = await user(s, 'Password Administrator', 'owner');
    alice = await user(s, 'Password User', 'alice');
    const other = await createOrgWithAdmin(s, `other-${process.pid}`);
    outsiders = {
      'another organisation\'s super administrator': { id: other.adminId, token: other.token, name: 'admin' },
      'a Password User without a share': await user(s, 'Password User', 'noshare'),
      'a Password Administrator without a share': await user(s, 'Password Administrator', 'padmin'),
    };
  });
  afterAll(() => s.close());

  async function answer(u: TestUser, method: 'get' | 'post', path: string, details?: Record<string, string>): Promise<Answer> {
    let req = request(s.vaultUrl)[method](`/restapi/json/v1/accounts${path}`).set('AUTHTOKEN', u.token);
    if (details) req = req.type('form').send({ INPUT_DATA: inputData(details) });
    const res = await req;
    return { http: res.status, body: res.body };
  }

  /** Each operation on account `aid` for requester `rid`, as an outsider calls it. */
  function operations(aid: number, rid: number): Record<string, (u: TestUser) => Promise<Answer>> {
    return {
      request: (u) => answer(u, 'post', `/${aid}/requestpassword`, { REASON: 'curious' }),
      approve: (u) => answer(u, 'post', `/${aid}/requester/${rid}/approve`),
      reject: (u) => answer(u, 'post', `/${aid}/requester/${rid}/reject`, { REASON: 'no' }),
      checkout: (u) => answer(u, 'post', `/${aid}/checkout`, { REASON: 'curious' }),
      checkin: (u) => answer(u, 'post', `/${aid}/requester/${rid}/checkin`, { REASON: 'done' }),
    };
  }

  async function state(accountId: number): Promise<unknown> {
    return s.dataSource.query('SELECT id, status, approved_by, decided_by, checked_in_by FROM password_requests WHERE account_id = $1 ORDER BY id', [accountId]);
  }

  /** Every outsider, every operation: the answer for a missing account; nothing changed or audited. */
  async function expectUnseen(accountId: number, stateName: string): Promise<void> {
    const before = await state(accountId);
    const auditBefore = await s.dataSource.query('SELECT count(*)::int AS n FROM audit WHERE account_id = $1', [accountId]);
    for (const [who, outsider] of Object.entries(outsiders)) {
      const missing = operations(MISSING_ACCOUNT, alice.id);
      for (const [op, run] of Object.entries(operations(accountId, alice.id))) {
        const seen = await run(outsider);
        const none = await missing[op](outsider);
        expect({ who, op, stateName, ...seen }).toEqual({ who, op, stateName, ...none });
      }
      // The approver's list (refused by role to a Password User) shows nothing of it either.
      const list = await w.pending(outsider);
      expect(list.result.status === 'Success' ? list.totalRows : 0).toBe(0);
    }
    expect(await state(accountId)).toEqual(before);
    expect(await s.dataSource.query('SELECT count(*)::int AS n FROM audit WHERE account_id = $1', [accountId])).toEqual(auditBefore);
  }

  it('in every state of a request: waiting, approved, checked out, checked in, rejected', async () => {
    const r = await controlledResource(s, owner);
    await share(s, r.resourceId, alice.id);
    await expectUnseen(r.accountId, 'no request yet');

    expect((await w.request(alice, r.accountId, { REASON: 'maintenance' })).result.status).toBe('Success');
    await expectUnseen(r.accountId, 'waiting');
    expect((await w.approve(owner, r.accountId, alice.id)).result.status).toBe('Success');
    await expectUnseen(r.accountId, 'approved');
    expect((await w.checkout(alice, r.accountId)).result.status).toBe('Success');
    await expectUnseen(r.accountId, 'checked out');
    expect((await w.checkin(alice, r.accountId, alice.id)).result.status).toBe('Success');
    await expectUnseen(r.accountId, 'checked in');

    expect((await w.request(alice, r.accountId, { REASON: 'again' })).result.status).toBe('Success');
    expect((await w.reject(owner, r.accountId, alice.id)).result.status).toBe('Success');
    await expectUnseen(r.accountId, 'rejected');
  });

  it('still tells a user who sees the account, and a named approver without a share, what state the request is in (approving needs the share)', async () => {
    const approver = await user(s, 'Password Administrator', 'approver');
    const viewer = await user(s, 'Password Administrator', 'viewer');
    const r = await controlledResource(s, owner, { APPROVER_USERS: approver.name });
    await share(s, r.resourceId, alice.id);
    await share(s, r.resourceId, viewer.id);
    await w.request(alice, r.accountId);
    expect((await w.approve(viewer, r.accountId, alice.id)).result.message).toBe('You are not an approver of this password request');
    expect((await w.checkin(viewer, r.accountId, alice.id)).result.message).toBe('The password request is waiting for approval');
    expect((await w.checkin(approver, r.accountId, alice.id)).result.message).toBe('The password request is waiting for approval');
    // Told the state, but an approval is counted only from someone who sees the account (issue 34).
    expect((await w.approve(approver, r.accountId, alice.id)).result.message).toBe(
      'You cannot approve this request: the account is not shared with you (an approver must be able to see the account)',
    );
    await share(s, r.resourceId, approver.id);
    expect((await w.approve(approver, r.accountId, alice.id)).result.message).toBe('Password request approved successfully');
  });
});
