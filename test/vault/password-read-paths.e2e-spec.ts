import request from 'supertest';
import { PasswordReadLeanRoute } from '../../apps/vault/src/passwords/password-read.lean-route';
import { createResource } from '../support/factories';
import { newStaticGroupWith, putUnderAccessControl, shareToNewUserGroup, shareToUser } from '../support/sharing';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';

// GET .../password has two entries: the lean route for its plain form, and the controller
// for every other form (doubled slashes, a body...). Both must answer exactly alike.
describe('password read: lean route and controller answer alike', () => {
  let s: TestServices;
  let r: Awaited<ReturnType<typeof createResource>>;
  let served: jest.SpyInstance;
  beforeAll(async () => {
    s = await startTestServices();
    r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Lean-And-Same-1' });
    served = jest.spyOn(PasswordReadLeanRoute.prototype as unknown as { serve(): Promise<void> }, 'serve');
  });
  afterAll(() => s.close());

  const lean = (path: string) => request(s.vaultUrl).get(path);
  const viaController = (path: string) => request(s.vaultUrl).get(path.replace('/resources/', '//resources/'));

  async function both(path: string, token?: string, query?: Record<string, string>) {
    served.mockClear();
    const a = lean(path);
    const b = viaController(path);
    if (token) [a, b].forEach((x) => x.set('AUTHTOKEN', token));
    if (query) [a, b].forEach((x) => x.query(query));
    const [ra, rb] = [await a, await b];
    expect(served).toHaveBeenCalledTimes(1);
    expect(rb.status).toBe(ra.status);
    expect(rb.body).toEqual(ra.body);
    expect(ra.headers['cache-control']).toBe('no-store');
    expect(ra.headers['etag']).toBeUndefined();
    return ra;
  }

  it('a password', async () => {
    const res = await both(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`, s.adminToken, {
      INPUT_DATA: inputData({ REASON: 'deploy' }),
    });
    expect(res.body.operation.Details.PASSWORD).toBe('Lean-And-Same-1');
    const audit = await s.dataSource.query(`SELECT reason FROM audit WHERE account_id = $1 AND operation = 'Password Retrieved'`, [r.accountId]);
    expect(audit).toEqual([{ reason: 'deploy' }, { reason: 'deploy' }]);
  });

  it('authentication failures, a token in the query, a bound user', async () => {
    const path = `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    expect((await both(path)).body.operation.name).toBe('Authentication');
    expect((await both(path, 'f'.repeat(64))).body.operation.result.status).toBe('Failed');
    expect((await both(path, undefined, { AUTHTOKEN: s.adminToken })).body.operation.Details.PASSWORD).toBe('Lean-And-Same-1');
    const bound = await createUserWithToken(s, 'lean-bound', 'Administrator', { allowedHosts: '10.0.0.1', superAdmin: true });
    expect((await both(path, bound.token)).body.operation.result.message).toBe('User is not allowed to access from this host');
  });

  // The lean read's one statement admits only callers SQL can admit alone; a locked, expired or
  // host-bound caller goes through the Authenticator first, so the quick decision must not
  // grant (and audit) a read for them, even one they could see.
  it('a locked, expired or host-bound caller gets no grant from the quick decision', async () => {
    const path = `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    const granted = async () =>
      Number((await s.dataSource.query(`SELECT count(*) FROM audit WHERE account_id = $1 AND operation = 'Password Retrieved'`, [r.accountId]))[0].count);
    const locked = await createUserWithToken(s, 'lean-locked', 'Administrator', { superAdmin: true });
    const expired = await createUserWithToken(s, 'lean-expired', 'Administrator', { superAdmin: true });
    const elsewhere = await createUserWithToken(s, 'lean-elsewhere', 'Administrator', { superAdmin: true, allowedHosts: '10.0.0.7' });
    const here = await createUserWithToken(s, 'lean-here', 'Administrator', { superAdmin: true, allowedHosts: '127.0.0.1' });
    await s.dataSource.query(`UPDATE users SET locked = true WHERE id = $1`, [locked.id]);
    await s.dataSource.query(`UPDATE users SET expires_on = current_date - 1 WHERE id = $1`, [expired.id]);
    const before = await granted();
    for (const caller of [locked, expired, elsewhere]) {
      expect((await both(path, caller.token)).body.operation.result.status).toBe('Failed');
    }
    expect(await granted()).toBe(before);
    // Admitted by the Authenticator (an allowed host), then granted by the gate: one row per read.
    expect((await both(path, here.token)).body.operation.Details.PASSWORD).toBe('Lean-And-Same-1');
    expect(await granted()).toBe(before + 2);
  });

  it('unknown, invisible and malformed accounts', async () => {
    const other = await createUserWithToken(s, 'lean-other', 'Password Administrator');
    const path = `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    expect((await both(path, other.token)).body.operation.result).toEqual({ status: 'Failed', message: 'No such account found' });
    expect((await both(`/restapi/json/v1/resources/abc/accounts/1/password`, s.adminToken)).body.operation.result.message).toBe('Invalid resource id: abc');
    const bad = await both(path, s.adminToken, { INPUT_DATA: '{operation:' });
    expect(bad.body.operation).toMatchObject({ name: 'GET PASSWORD', result: { status: 'Failed' } });
  });

  it('leaves every other form to the controller', async () => {
    served.mockClear();
    const res = await request(s.vaultUrl)
      .get(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password/`)
      .set('AUTHTOKEN', s.adminToken)
      .set('Content-Type', 'text/json')
      .send(`INPUT_DATA=${encodeURIComponent(inputData({ REASON: 'body' }))}`);
    expect(res.body.operation.Details.PASSWORD).toBe('Lean-And-Same-1');
    expect(served).not.toHaveBeenCalled();
  });

  // The lean route decides quickly (owner, a share to the user) and hands everything else to
  // the full decision: each way a read is decided must give one answer and one audit row.
  it('every kind of grant and refusal: one audit row per read, lean and controller alike', async () => {
    const q = (sql: string, params: unknown[] = []) => s.dataSource.query(sql, params);
    const [{ id: org }] = await q(`SELECT id FROM organizations WHERE name = 'Default'`);
    const owner = await createUserWithToken(s, 'quick-owner', 'Password Administrator');
    const reader = await createUserWithToken(s, 'quick-reader', 'Password User');
    const cases: { name: string; setup: (rid: number, aid: number) => Promise<unknown>; granted: boolean; message?: string }[] = [
      { name: 'owner', setup: async () => undefined, granted: true },
      { name: 'direct share', setup: (rid) => shareToUser(s.dataSource, rid, reader.id, 'view'), granted: true },
      {
        name: 'account share to a user group',
        setup: (rid, aid) => shareToNewUserGroup(s.dataSource, org, 'quick-team', reader.id, { resourceId: rid, accountId: aid, level: 'view' }),
        granted: true,
      },
      {
        name: 'resource group share',
        setup: (rid) => newStaticGroupWith(s.dataSource, org, 'quick-rg', rid, { shareTo: { userId: reader.id, level: 'view' } }),
        granted: true,
      },
      {
        name: 'under access control',
        setup: async (rid) => {
          await shareToUser(s.dataSource, rid, reader.id, 'view');
          return putUnderAccessControl(s.dataSource, rid);
        },
        granted: false,
        message: 'The password is under access control: request it and check it out first',
      },
      {
        name: 'under access control, checked out',
        setup: async (rid, aid) => {
          await shareToUser(s.dataSource, rid, reader.id, 'view');
          await putUnderAccessControl(s.dataSource, rid, aid);
          return q(
            `INSERT INTO password_requests (account_id, requester_id, status, expires_at, checked_out_at, checkout_until)
             VALUES ($1, $2, 'checked_out', now() + interval '1 hour', now(), now() + interval '1 hour')`,
            [aid, reader.id],
          );
        },
        granted: true,
      },
      {
        name: 'help-desk rule',
        setup: async (rid) => {
          await shareToUser(s.dataSource, rid, reader.id, 'view');
          return newStaticGroupWith(s.dataSource, org, 'quick-hd', rid, { noHelpdesk: true });
        },
        granted: false,
      },
    ];
    for (const c of cases) {
      const res = await createResource(s.vaultUrl, owner.token, { PASSWORD: 'Quick-Or-Full-1' });
      await c.setup(res.resourceId, res.accountId);
      const token = c.name === 'owner' ? owner.token : reader.token;
      const answer = await both(`/restapi/json/v1/resources/${res.resourceId}/accounts/${res.accountId}/password`, token);
      expect([c.name, answer.body.operation.result.status]).toEqual([c.name, c.granted ? 'Success' : 'Failed']);
      if (c.granted) expect(answer.body.operation.Details.PASSWORD).toBe('Quick-Or-Full-1');
      if (c.message) expect(answer.body.operation.result.message).toBe(c.message);
      const rows = await q(`SELECT operation, outcome FROM audit WHERE account_id = $1 AND operation LIKE 'Password Retriev%'`, [res.accountId]);
      const row = c.granted ? { operation: 'Password Retrieved', outcome: 'Success' } : { operation: 'Password Retrieval Denied', outcome: 'Failed' };
      expect([c.name, rows]).toEqual([c.name, [row, row]]);
    }
    // A reason the organisation requires, asked of the owner (the quick decision's own case).
    const res = await createResource(s.vaultUrl, owner.token, { PASSWORD: 'Quick-Or-Full-1' });
    await q(`INSERT INTO settings (org_id, key, value) VALUES ($1, 'reason_required', 'true')`, [org]);
    try {
      const path = `/restapi/json/v1/resources/${res.resourceId}/accounts/${res.accountId}/password`;
      expect((await both(path, owner.token)).body.operation.result.message).toMatch(/^REASON is required/);
      expect((await both(path, owner.token, { INPUT_DATA: inputData({ REASON: 'why' }) })).body.operation.Details.PASSWORD).toBe('Quick-Or-Full-1');
      const rows = await q(`SELECT outcome FROM audit WHERE account_id = $1 AND operation LIKE 'Password Retriev%' ORDER BY id`, [res.accountId]);
      expect(rows.map((r: { outcome: string }) => r.outcome)).toEqual(['Failed', 'Failed', 'Success', 'Success']);
    } finally {
      await q(`DELETE FROM settings WHERE org_id = $1 AND key = 'reason_required'`, [org]);
    }
  });
});
