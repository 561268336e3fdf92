import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { newStaticGroupWith, putUnderAccessControl, shareToNewUserGroup, shareToUser } from '../support/sharing';
import { inputData, Json } from '../support/http';
import { auditRows } from './vault-client';

/**
 * Resource creation and password change with a form body are served by lean routes
 * (ResourceCreateLeanRoute, PasswordChangeLeanRoute); the same call as multipart goes the
 * long way through Express and Nest. Both must answer byte for byte alike and leave the
 * same rows behind.
 */
describe('lean write routes answer as the long way does', () => {
  let s: TestServices;
  let user: { id: number; token: string };
  beforeAll(async () => {
    s = await startTestServices();
    user = await createUserWithToken(s, 'lean-user', 'Password User');
  });
  afterAll(() => s.close());

  type Way = 'lean' | 'long';
  const send = (way: Way, method: 'post' | 'put', path: string, token: string, details: Json) => {
    const req = request(s.vaultUrl)[method](`/restapi/json/v1${path}`).set('AUTHTOKEN', token);
    return way === 'lean' ? req.type('form').send({ INPUT_DATA: inputData(details) }) : req.field('INPUT_DATA', inputData(details));
  };
  const answer = (res: request.Response) => ({
    status: res.status,
    body: res.text,
    type: res.headers['content-type'],
    cache: res.headers['cache-control'],
    pragma: res.headers.pragma,
  });
  const both = async (call: (way: Way) => Promise<request.Response>) => {
    const lean = answer(await call('lean'));
    const long = answer(await call('long'));
    expect(lean).toEqual(long);
    return JSON.parse(lean.body);
  };

  it('creates a resource, and refuses a duplicate, a missing field and an unknown token alike', async () => {
    const details = (name: string) => ({ RESOURCENAME: name, ACCOUNTNAME: 'root', RESOURCETYPE: 'linux', PASSWORD: 'Lean-Pass-123!' });
    const created = await Promise.all((['lean', 'long'] as Way[]).map((way) => send(way, 'post', '/resources', s.adminToken, details(`lean-${way}`))));
    expect(created.map((r) => r.body.operation.result.message)).toEqual([
      'Resource lean-lean has been added successfully',
      'Resource lean-long has been added successfully',
    ]);
    const rows = await auditRows(s, `operation = 'Resource Added' AND resource_name IN ('lean-lean', 'lean-long')`);
    const shape = (r: Json) => ({ ...r, id: 0, created_at: 0, resource_id: 0, account_id: 0, resource_name: '' });
    expect(rows).toHaveLength(2);
    expect(shape(rows[0])).toEqual(shape(rows[1]));
    expect(rows[0].resource_id).toEqual(expect.any(Number));
    expect(rows[0].account_id).toEqual(expect.any(Number));

    const duplicate = await both((way) => send(way, 'post', '/resources', s.adminToken, details('LEAN-LEAN')));
    expect(duplicate.operation.result).toEqual({ status: 'Failed', message: 'Resource LEAN-LEAN already exists' });
    const missing = await both((way) => send(way, 'post', '/resources', s.adminToken, { ACCOUNTNAME: 'root', RESOURCETYPE: 'Linux', PASSWORD: 'x' }));
    expect(missing.operation.result.status).toBe('Failed');
    const unknown = await both((way) => send(way, 'post', '/resources', 'not-a-token', details('lean-unknown')));
    expect(unknown.operation.name).toBe('Authentication');
    const forbidden = await both((way) => send(way, 'post', '/resources', user.token, details('lean-forbidden')));
    expect(forbidden.operation.result.status).toBe('Failed');
    expect(await s.dataSource.query(`SELECT name FROM resources WHERE name_key LIKE 'lean-%' ORDER BY name`)).toEqual([{ name: 'lean-lean' }, { name: 'lean-long' }]);
  });

  it('changes a password, and refuses reuse, a bad id, an account the caller may not see and an unknown token alike', async () => {
    const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Start-Pass-123!' });
    const path = `/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    const changed = await Promise.all(
      (['lean', 'long'] as Way[]).map(async (way) => answer(await send(way, 'put', path, s.adminToken, { NEWPASSWORD: `Next-${way}-Pass-1!`, REASON: 'test' }))),
    );
    expect(changed[0]).toEqual(changed[1]);
    expect(JSON.parse(changed[0].body).operation.result).toEqual({ status: 'Success', message: 'Password changed successfully' });

    const reuse = await both((way) => send(way, 'put', path, s.adminToken, { NEWPASSWORD: 'Start-Pass-123!' }));
    expect(reuse.operation.result).toEqual({ status: 'Failed', message: 'Must not be one of the last 4 password(s)' });
    const weak = await both((way) => send(way, 'put', path, s.adminToken, { NEWPASSWORD: 'short' }));
    expect(weak.operation.result.status).toBe('Failed');
    expect(await s.dataSource.query('SELECT count(*)::int AS n FROM password_history WHERE account_id = $1', [r.accountId])).toEqual([{ n: 2 }]);

    const badId = await both((way) => send(way, 'put', `/resources/abc/accounts/${r.accountId}/password`, s.adminToken, { NEWPASSWORD: 'Other-Pass-123!' }));
    expect(badId.operation.result).toEqual({ status: 'Failed', message: 'Invalid resource id: abc' });
    const hidden = await both((way) => send(way, 'put', path, user.token, { NEWPASSWORD: 'Other-Pass-123!' }));
    expect(hidden.operation.result.status).toBe('Failed');
    const refusals = await auditRows(s, `account_id IS NULL AND actor_id = $1 AND outcome = 'Failed'`, [user.id]);
    expect(refusals.map((a) => [a.operation, a.description])).toEqual([
      ['Password Change Denied', 'refused: NOT_FOUND'],
      ['Password Change Denied', 'refused: NOT_FOUND'],
    ]);
    const unknown = await both((way) => send(way, 'put', path, 'not-a-token', { NEWPASSWORD: 'Other-Pass-123!' }));
    expect(unknown.operation.name).toBe('Authentication');

    const trail = await auditRows(s, `account_id = $1 AND operation = 'Password Changed'`, [r.accountId]);
    const shape = (a: Json) => ({ ...a, id: 0, created_at: 0 });
    expect(trail).toHaveLength(2);
    expect(shape(trail[0])).toEqual(shape(trail[1]));
    expect(trail[0]).toMatchObject({ outcome: 'Success', reason: 'test', resource_id: r.resourceId, account_name: r.accountName });
  });

  // Each way a change is decided (ownership, shares to the user, their group or a resource
  // group, and refusals) must give one answer, one audit row, and a history row exactly when
  // granted.
  it('changes through every kind of grant and refuses alike: one audit row each', async () => {
    const q = (sql: string, params: unknown[] = []) => s.dataSource.query(sql, params);
    const [{ id: org }] = await q(`SELECT id FROM organizations WHERE name = 'Default'`);
    const owner = await createUserWithToken(s, 'quick-change-owner', 'Password Administrator');
    const editor = await createUserWithToken(s, 'quick-change-editor', 'Password Administrator');
    const share = (rid: number, level: string) => shareToUser(s.dataSource, rid, editor.id, level);
    const cases: { name: string; setup: (rid: number, aid: number) => Promise<unknown>; granted: boolean }[] = [
      { name: 'owner', setup: async () => undefined, granted: true },
      { name: 'modify share', setup: (rid) => share(rid, 'modify'), granted: true },
      { name: 'view share', setup: (rid) => share(rid, 'view'), granted: false },
      {
        name: 'modify share to a user group',
        setup: (rid) => shareToNewUserGroup(s.dataSource, org, 'qc-team', editor.id, { resourceId: rid, level: 'modify' }),
        granted: true,
      },
      {
        name: 'view share, modify through a resource group',
        setup: async (rid) => {
          await share(rid, 'view');
          return newStaticGroupWith(s.dataSource, org, 'qc-rg', rid, { shareTo: { userId: editor.id, level: 'modify' } });
        },
        granted: true,
      },
      {
        name: 'modify share, under access control',
        setup: async (rid) => {
          await share(rid, 'modify');
          return putUnderAccessControl(s.dataSource, rid);
        },
        granted: false,
      },
    ];
    for (const c of cases) {
      const res = await createResource(s.vaultUrl, owner.token, { PASSWORD: 'Quick-Change-Old-1' });
      await c.setup(res.resourceId, res.accountId);
      const token = c.name === 'owner' ? owner.token : editor.token;
      const path = `/resources/${res.resourceId}/accounts/${res.accountId}/password`;
      const answerOf = await send('lean', 'put', path, token, { NEWPASSWORD: 'Quick-Change-New-1', REASON: 'test' });
      expect([c.name, answerOf.body.operation.result.status]).toEqual([c.name, c.granted ? 'Success' : 'Failed']);
      const rows = await q(`SELECT operation FROM audit WHERE account_id = $1 AND operation LIKE 'Password Change%' ORDER BY id`, [res.accountId]);
      expect([c.name, rows]).toEqual([c.name, [{ operation: c.granted ? 'Password Changed' : 'Password Change Denied' }]]);
      const history = await q('SELECT count(*)::int AS n FROM password_history WHERE account_id = $1', [res.accountId]);
      expect([c.name, history[0].n]).toEqual([c.name, c.granted ? 1 : 0]);
    }
  });

  // The lean change authenticates in its own statement (PasswordChanger.changeAsCaller). Only
  // callers SQL admits alone may be changed by it: a locked, expired or host-bound caller, or a
  // role without password.change, goes through the Authenticator and is refused there, with
  // nothing written, exactly as the long way refuses them.
  it('a locked, expired, host-bound or read-only caller changes nothing through the one statement, and is answered as the long way answers', async () => {
    const q = (sql: string, params: unknown[] = []) => s.dataSource.query(sql, params);
    const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Fold-Start-Pass-1!' });
    const path = `/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    const make = (name: string, role: string, options: { allowedHosts?: string } = {}) => createUserWithToken(s, name, role, { superAdmin: true, ...options });
    const locked = await make('fold-locked', 'Administrator');
    const expired = await make('fold-expired', 'Administrator');
    const elsewhere = await make('fold-elsewhere', 'Administrator', { allowedHosts: '10.0.0.7' });
    const auditor = await make('fold-auditor', 'Password Auditor');
    await q('UPDATE users SET locked = true WHERE id = $1', [locked.id]);
    await q('UPDATE users SET expires_on = current_date - 1 WHERE id = $1', [expired.id]);
    const expected: [string, string][] = [
      ['locked', 'User account is locked. Contact your administrator.'],
      ['expired', 'User account has expired. Contact your administrator.'],
      ['elsewhere', 'User is not allowed to access from this host'],
      ['auditor', 'Your role (Password Auditor) does not allow this operation'],
    ];
    for (const [[name, message], caller] of expected.map((e, i) => [e, [locked, expired, elsewhere, auditor][i]] as const)) {
      const body = await both((way) => send(way, 'put', path, caller.token, { NEWPASSWORD: `Fold-${name}-Pass-1!`, REASON: 'test' }));
      expect([name, body.operation.result.status, body.operation.result.message]).toEqual([name, 'Failed', expect.stringContaining(message)]);
    }
    expect(await q(`SELECT count(*)::int AS n FROM audit WHERE account_id = $1 AND operation = 'Password Changed'`, [r.accountId])).toEqual([{ n: 0 }]);
    expect(await q('SELECT count(*)::int AS n FROM password_history WHERE account_id = $1', [r.accountId])).toEqual([{ n: 0 }]);
    // The same call with the token in the form body instead of the header, by a caller SQL admits.
    const inBody = await request(s.vaultUrl)
      .put(`/restapi/json/v1${path}`)
      .type('form')
      .send({ AUTHTOKEN: s.adminToken, INPUT_DATA: inputData({ NEWPASSWORD: 'Fold-Body-Pass-1!', REASON: 'test' }) });
    expect(inBody.body.operation.result).toEqual({ status: 'Success', message: 'Password changed successfully' });
    expect(await q(`SELECT actor_name, reason FROM audit WHERE account_id = $1 AND operation = 'Password Changed'`, [r.accountId])).toEqual([{ actor_name: 'admin', reason: 'test' }]);
  });
});
