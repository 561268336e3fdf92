import { accessControlCommand } from '../../scripts/admin/access-control.commands';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { call, controlledResource, requestStatus, share, TestUser, user, workflow } from './workflow-helpers';

const WAITING = 'WAITING FOR APPROVAL / CHECKOUT';
const CHECKED_OUT = '***** [checkIn]';

describe('vault password access workflow (ops 10-15)', () => {
  let s: TestServices;
  let w: ReturnType<typeof workflow>;
  let owner: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let otherAdmin: TestUser;

  beforeAll(async () => {
    s = await startTestServices();
    w = workflow(s.vaultUrl);
    owner = await user(s, 'Password Administrator', 'owner');
    alice = await user(s, 'Password User', 'alice');
    bob = await user(s, 'Password User', 'bob');
    otherAdmin = await user(s, 'Password Administrator', 'padmin');
  });
  afterAll(() => s.close());

  async function setup(settings = {}) {
    const r = await controlledResource(s, owner, settings);
    await share(s, r.resourceId, alice.id);
    await share(s, r.resourceId, bob.id);
    return r;
  }

  async function audits(requestId: number): Promise<string[]> {
    const rows = await s.dataSource.query('SELECT operation FROM audit WHERE request_id = $1 ORDER BY id', [requestId]);
    return rows.map((r: { operation: string }) => r.operation);
  }

  async function requestId(accountId: number, requesterId: number): Promise<number> {
    const [row] = await s.dataSource.query('SELECT id FROM password_requests WHERE account_id = $1 AND requester_id = $2 ORDER BY id DESC LIMIT 1', [
      accountId,
      requesterId,
    ]);
    return row.id;
  }

  describe('access control setting', () => {
    it('is configured by the owner, shown, audited, and refused to a user without the permission', async () => {
      const r = await setup({ APPROVERS_REQUIRED: '2', CHECKOUT_MINUTES: '15', RESET_AFTER_CHECKIN: 'true', APPROVER_USERS: otherAdmin.name });
      const shown = await call(s.vaultUrl, 'get', `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, owner.token);
      expect(shown.result.status).toBe('Success');
      expect(shown.Details).toMatchObject({
        ENABLED: 'true',
        LEVEL: 'ACCOUNT',
        APPROVERS_REQUIRED: '2',
        CHECKOUT_MINUTES: '15',
        RESET_AFTER_CHECKIN: 'true',
        APPROVER_USERS: otherAdmin.name,
        EXCLUSIVE: 'true',
      });
      const [audit] = await s.dataSource.query(`SELECT * FROM audit WHERE operation = 'Access Control Configured' AND account_id = $1`, [r.accountId]);
      expect(audit.actor_id).toBe(owner.id);
      const refused = await call(s.vaultUrl, 'put', `/restapi/json/v1/resources/${r.resourceId}/accesscontrol`, alice.token, {});
      expect(refused.result.status).toBe('Failed');
      const unknown = await call(s.vaultUrl, 'put', `/restapi/json/v1/resources/${r.resourceId}/accesscontrol`, owner.token, { APPROVER_USERS: 'nobody-here' });
      expect(unknown.result).toEqual({ status: 'Failed', message: 'APPROVER_USERS: no user named nobody-here' });
    });

    it('applies a resource-level setting to every account, and can be removed', async () => {
      const r = await setup();
      const res = await call(s.vaultUrl, 'put', `/restapi/json/v1/resources/${r.resourceId}/accesscontrol`, owner.token, { EXCLUSIVE: 'false' });
      expect(res.result).toEqual({ status: 'Success', message: `Access control configured for resource ${r.name}` });
      await call(s.vaultUrl, 'put', `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, owner.token, { ENABLED: 'false' });
      const shown = await call(s.vaultUrl, 'get', `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, owner.token);
      expect(shown.Details).toMatchObject({ LEVEL: 'RESOURCE', EXCLUSIVE: 'false' });
      await call(s.vaultUrl, 'put', `/restapi/json/v1/resources/${r.resourceId}/accesscontrol`, owner.token, { ENABLED: 'false' });
      expect((await w.password(alice, r.resourceId, r.accountId)).result.status).toBe('Success');
      expect((await w.request(alice, r.accountId)).result.message).toMatch(/access control is not enabled/);
    });
  });

  it('is configured from the admin command too, with the same validation', async () => {
    const r = await createResource(s.vaultUrl, owner.token);
    const ctx = { config: s.config, dataSource: s.dataSource, databaseUrl: s.databaseUrl, keyring: async () => { throw new Error('unused'); }, close: async () => undefined };
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await accessControlCommand.run(ctx, { resource: r.name, account: r.accountName, approvers: '2', 'checkout-minutes': '5', exclusive: 'false' });
      expect(log).toHaveBeenCalledWith(`Access control configured for account ${r.accountName}`);
      await expect(accessControlCommand.run(ctx, { resource: r.name, approvers: '3' })).rejects.toThrow('APPROVERS_REQUIRED must be 1 or 2');
    } finally {
      log.mockRestore();
    }
    const shown = await call(s.vaultUrl, 'get', `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, owner.token);
    expect(shown.Details).toMatchObject({ APPROVERS_REQUIRED: '2', CHECKOUT_MINUTES: '5', EXCLUSIVE: 'false' });
    await accessControlCommand.run(ctx, { resource: r.name, account: r.accountName, off: true });
    expect((await call(s.vaultUrl, 'get', `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, owner.token)).Details).toEqual({
      ENABLED: 'false',
    });
  });

  it('walks request → list → approve → check-out → read → check-in, auditing every step', async () => {
    const r = await setup();
    const denied = await w.password(alice, r.resourceId, r.accountId);
    expect(denied.result.status).toBe('Failed');
    expect(denied.Details).toEqual({ PASSWORD: '[Request]' });
    const [deniedAudit] = await s.dataSource.query(`SELECT outcome FROM audit WHERE operation = 'Password Retrieval Denied' AND actor_id = $1`, [alice.id]);
    expect(deniedAudit.outcome).toBe('Failed');

    const requested = await w.request(alice, r.accountId, { REASON: 'maintenance', PASSWDID: String(r.accountId) });
    expect(requested).toEqual({
      name: 'REQUEST_PASSWORD',
      result: { status: 'Success', message: 'Password requested successfully' },
      Details: { STATUS: WAITING },
    });
    expect((await w.request(alice, r.accountId)).result).toEqual({ status: 'Failed', message: 'You already have an open request for this password' });

    const list = await w.pending(owner);
    expect(list.name).toBe('GET_PASSWORDREQUEST');
    const group = list.Details.find((g: Record<string, unknown>) => g['REQUESTER USERID'] === String(alice.id));
    expect(group).toMatchObject({ 'REQUESTED BY': alice.name });
    expect(group.PASSWORDREQUESTLIST).toEqual([
      expect.objectContaining({
        'ACCOUNT ID': String(r.accountId),
        'ACCOUNT NAME': r.accountName,
        'RESOURCE ID': String(r.resourceId),
        'RESOURCE NAME': r.name,
        'PASSWD ID': String(r.accountId),
        REASON: 'maintenance',
        STATUS: 'WAITING FOR APPROVAL',
      }),
    ]);
    expect(await w.pending(otherAdmin)).toEqual({
      name: 'GET_PASSWORDREQUEST',
      result: { status: 'Success', message: 'Password requests fetched successfully' },
      totalRows: 0,
    });

    expect((await w.checkout(alice, r.accountId)).result).toEqual({ status: 'Failed', message: 'The password request is waiting for approval' });
    // An administrator who neither sees the account nor approves for it is not told that it is requested.
    expect((await w.approve(otherAdmin, r.accountId, alice.id)).result.message).toBe('No password request found for this account and requester');
    expect((await w.approve(owner, r.accountId, alice.id)).result).toEqual({ status: 'Success', message: 'Password request approved successfully' });
    expect((await w.approve(owner, r.accountId, alice.id)).result.message).toBe('The password request is approved and waiting for check-out');

    const out = await w.checkout(alice, r.accountId);
    expect(out).toEqual({
      name: 'REQUEST_CHECKOUT',
      result: { status: 'Success', message: 'Password checked out successfully' },
      Details: { STATUS: CHECKED_OUT },
    });
    expect((await w.password(alice, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: r.password });
    const inUse = await w.password(bob, r.resourceId, r.accountId);
    expect(inUse.result).toEqual({ status: 'Failed', message: 'The password is in use: another user has checked it out' });
    expect(inUse.Details).toEqual({ PASSWORD: '[ In use ]' });
    const accounts = await call(s.vaultUrl, 'get', `/restapi/json/v1/resources/${r.resourceId}/accounts`, owner.token);
    expect(accounts.Details['ACCOUNT LIST'][0]['PASSWORD STATUS']).toBe('[ In use ]');

    expect((await w.checkin(bob, r.accountId, alice.id)).result.message).toBe('Only the user who checked the password out or an approver can check it in');
    expect((await w.checkin(alice, r.accountId, alice.id)).result).toEqual({ status: 'Success', message: 'Password checked in successfully' });
    expect((await w.checkin(alice, r.accountId, alice.id)).result).toEqual({ status: 'Failed', message: 'The password has already been checked in' });
    expect((await w.password(alice, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: '[Request]' });
    const after = await call(s.vaultUrl, 'get', `/restapi/json/v1/resources/${r.resourceId}/accounts`, owner.token);
    expect(after.Details['ACCOUNT LIST'][0]['PASSWORD STATUS']).toBe('****');

    const id = await requestId(r.accountId, alice.id);
    expect(await audits(id)).toEqual(['Password Requested', 'Password Request Approved', 'Password Checked Out', 'Password Checked In']);
    const [requestedAudit] = await s.dataSource.query(`SELECT * FROM audit WHERE request_id = $1 AND operation = 'Password Requested'`, [id]);
    expect(requestedAudit).toMatchObject({ actor_id: alice.id, reason: 'maintenance', account_id: r.accountId });
  });

  it('refuses a requester approving their own request, and answers a rejected request clearly', async () => {
    const r = await setup();
    const padmin = await user(s, 'Password Administrator', 'self');
    await share(s, r.resourceId, padmin.id);
    await w.request(padmin, r.accountId);
    expect((await w.approve(padmin, r.accountId, padmin.id)).result).toEqual({
      status: 'Failed',
      message: 'You cannot approve or reject your own password request',
    });
    expect((await w.reject(owner, r.accountId, padmin.id)).result).toEqual({ status: 'Success', message: 'Password request rejected successfully' });
    expect((await w.checkout(padmin, r.accountId)).result.message).toBe('The password request has been rejected');
    expect((await w.approve(owner, r.accountId, padmin.id)).result.message).toBe('The password request has been rejected');
    expect(await requestStatus(s, r.accountId, padmin.id)).toBe('rejected');
  });

  it('refuses unknown requests, invisible accounts and an invalid id by name', async () => {
    const r = await setup();
    const stranger = await user(s, 'Password User', 'stranger');
    expect((await w.request(stranger, r.accountId)).result).toEqual({ status: 'Failed', message: 'No such account found' });
    expect((await w.checkout(bob, r.accountId)).result.message).toBe('No password request found for this account and requester');
    expect((await w.approve(owner, r.accountId, bob.id)).result.message).toBe('No password request found for this account and requester');
    expect((await w.checkin(bob, r.accountId, bob.id)).result.message).toBe('No password request found for this account and requester');
    expect((await call(s.vaultUrl, 'post', '/restapi/json/v1/accounts/abc/checkout', bob.token)).result.message).toMatch(/Invalid account id/);
  });

  it('requires REASON when the setting demands it', async () => {
    const r = await setup({ REASON_REQUIRED: 'true', APPROVAL_REQUIRED: 'false' });
    expect((await w.request(alice, r.accountId)).result).toEqual({ status: 'Failed', message: 'REASON is required to request this password' });
    expect((await w.request(alice, r.accountId, { REASON: 'incident 42' })).result.status).toBe('Success');
    expect((await w.checkout(alice, r.accountId)).result).toEqual({ status: 'Failed', message: 'REASON is required to check out this password' });
    expect((await w.checkout(alice, r.accountId, { REASON: 'incident 42' })).Details).toEqual({ STATUS: CHECKED_OUT });
    // The account views tell clients that a reason is needed, and that the password is in use.
    const list = await call(s.vaultUrl, 'get', `/restapi/json/v1/resources/${r.resourceId}/accounts`, owner.token);
    expect(list.Details.PASSWORDREQUEST_REASON_MANDATORY).toBe('true');
    expect(list.Details['ACCOUNT LIST'][0]).toMatchObject({ ISREASONREQUIRED: 'true', 'PASSWORD STATUS': '[ In use ]' });
    const details = await call(s.vaultUrl, 'get', `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}`, owner.token);
    expect(details.Details).toMatchObject({ PASSWORDREQUEST_REASON_MANDATORY: 'true', 'PASSWORD STATUS': '[ In use ]' });
  });

  it('with two approvers needed, needs two distinct approvers (a named user among them)', async () => {
    const r = await setup({ APPROVERS_REQUIRED: '2', APPROVER_USERS: otherAdmin.name });
    // An approver must see the account (issue 34).
    await share(s, r.resourceId, otherAdmin.id);
    await w.request(alice, r.accountId);
    expect((await w.approve(owner, r.accountId, alice.id)).result).toEqual({
      status: 'Success',
      message: 'Approval recorded; 1 more approval is needed',
    });
    expect((await w.approve(owner, r.accountId, alice.id)).result.message).toBe('You have already approved this request');
    expect((await w.pending(owner)).totalRows).toBe(0);
    expect((await w.checkout(alice, r.accountId)).result.message).toBe('The password request is waiting for approval');
    expect((await w.pending(otherAdmin)).totalRows).toBe(1);
    expect((await w.approve(otherAdmin, r.accountId, alice.id)).result.message).toBe('Password request approved successfully');
    expect((await w.checkout(alice, r.accountId)).result.status).toBe('Success');
  });

  it('lets an approver check in for the user, and gives exclusive use to one user at a time', async () => {
    const r = await setup({ APPROVAL_REQUIRED: 'false' });
    await w.request(alice, r.accountId);
    await w.request(bob, r.accountId);
    expect((await w.checkout(alice, r.accountId)).result.status).toBe('Success');
    expect((await w.checkout(bob, r.accountId)).result).toEqual({ status: 'Failed', message: 'The password is already checked out by another user' });
    expect((await w.checkin(owner, r.accountId, alice.id)).result.status).toBe('Success');
    const [row] = await s.dataSource.query(`SELECT checked_in_by FROM password_requests WHERE account_id = $1 AND requester_id = $2`, [r.accountId, alice.id]);
    expect(row.checked_in_by).toBe(owner.id);
    expect((await w.checkout(bob, r.accountId)).result.status).toBe('Success');
  });

  it('lets several users check out a non-exclusive account', async () => {
    const r = await setup({ APPROVAL_REQUIRED: 'false', EXCLUSIVE: 'false' });
    await w.request(alice, r.accountId);
    await w.request(bob, r.accountId);
    expect((await w.checkout(alice, r.accountId)).result.status).toBe('Success');
    expect((await w.checkout(bob, r.accountId)).result.status).toBe('Success');
    expect((await w.password(bob, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: r.password });
  });

  it('resets the password after check-in when the account says so, keeping the old one in history', async () => {
    const r = await setup({ APPROVAL_REQUIRED: 'false', RESET_AFTER_CHECKIN: 'true' });
    const [before] = await s.dataSource.query('SELECT password FROM accounts WHERE id = $1', [r.accountId]);
    await w.request(alice, r.accountId);
    await w.checkout(alice, r.accountId);
    expect((await w.checkin(alice, r.accountId, alice.id)).result.status).toBe('Success');
    const [history] = await s.dataSource.query('SELECT password FROM password_history WHERE account_id = $1', [r.accountId]);
    expect(Buffer.compare(history.password, before.password)).toBe(0);
    const fresh = (await w.password(owner, r.resourceId, r.accountId)).result;
    expect(fresh.status).toBe('Failed'); // still under access control for the owner too
    await w.request(bob, r.accountId);
    await w.checkout(bob, r.accountId);
    const read = await w.password(bob, r.resourceId, r.accountId);
    expect(read.Details.PASSWORD).not.toBe(r.password);
    expect(read.Details.PASSWORD.length).toBeGreaterThanOrEqual(8);
    const id = await requestId(r.accountId, alice.id);
    expect(await audits(id)).toEqual(['Password Requested', 'Password Checked Out', 'Password Changed', 'Password Checked In']);
  });

  it('ends racing approve, reject, check-out and check-in on one request in one well-defined state', async () => {
    for (let round = 0; round < 8; round++) {
      const r = await setup();
      await w.request(alice, r.accountId);
      const [approve, reject, checkout, checkin] = await Promise.all([
        w.approve(owner, r.accountId, alice.id),
        w.reject(owner, r.accountId, alice.id),
        w.checkout(alice, r.accountId),
        w.checkin(alice, r.accountId, alice.id),
      ]);
      const ok = (op: Record<string, any>) => op.result.status === 'Success';
      const status = await requestStatus(s, r.accountId, alice.id);
      const id = await requestId(r.accountId, alice.id);
      const trail = await audits(id);
      // Every answer is an envelope with a message.
      for (const op of [approve, reject, checkout, checkin]) expect(op.result.message).toBeTruthy();
      // The invariants, whatever order the calls ran in: a rejected request is never checked out;
      // a check-out follows an approval, a check-in a check-out; the trail holds each success once, in that order.
      expect(ok(reject) && ok(checkout)).toBe(false);
      if (ok(checkout)) expect(ok(approve)).toBe(true);
      if (ok(checkin)) expect(ok(checkout)).toBe(true);
      const order = ['Password Requested', 'Password Request Approved', 'Password Checked Out', 'Password Checked In'];
      const steps = trail.filter((t) => order.includes(t));
      expect(steps).toEqual([...steps].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
      if (ok(reject)) expect(trail).not.toContain('Password Checked Out');
      expect(trail.length).toBe(1 + [approve, reject, checkout, checkin].filter(ok).length);
      // And the end state is the last success's.
      const expected = ok(checkin) ? 'checked_in' : ok(checkout) ? 'checked_out' : ok(reject) ? 'rejected' : ok(approve) ? 'approved' : 'waiting';
      expect(status).toBe(expected);
    }
  });
});
