import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { auditRows, vaultClient, VaultClient } from './vault-client';

describe('vault sharing: "owned by or shared to" on every path', () => {
  let s: TestServices;
  let admin: VaultClient;
  let r: Awaited<ReturnType<typeof createResource>>;
  let appAccountId: number;
  const users: Record<string, { id: number; token: string; api: VaultClient }> = {};

  const user = async (name: string, role: string) => {
    const u = await createUserWithToken(s, name, role);
    users[name] = { ...u, api: vaultClient(s, u.token) };
    return users[name];
  };
  const share = (access: string, target: { USERID?: number; USERGROUPID?: number }, path = `/resources/${r.resourceId}/share`) =>
    admin.put(path, { ACCESSTYPE: access, ...Object.fromEntries(Object.entries(target).map(([k, v]) => [k, String(v)])) });

  beforeAll(async () => {
    s = await startTestServices();
    admin = vaultClient(s, s.adminToken);
    r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'shared-db', ACCOUNTNAME: 'root', PASSWORD: 'Root-Secret-123!' });
    await admin.post(`/resources/${r.resourceId}/accounts`, { ACCOUNTLIST: [{ ACCOUNTNAME: 'app', PASSWORD: 'App-Secret-456!' }] });
    [{ id: appAccountId }] = await s.dataSource.query(`SELECT id FROM accounts WHERE name = 'app'`);
    await user('alice', 'Password User');
    await user('bob', 'Password Administrator');
    await user('carol', 'Password User');
    await user('boss', 'Administrator');
  });
  afterAll(() => s.close());

  /** Every read path of issue 3, as `u` sees the account `accountId`. */
  async function everyPath(u: VaultClient, accountId: number, accountName: string) {
    const rid = r.resourceId;
    return {
      list: await u.get('/resources'),
      search: await u.get('/resources', { SEARCHCOLUMN: 'RESOURCENAME', SEARCHVALUE: 'shared' }),
      accounts: await u.get(`/resources/${rid}/accounts`),
      details: await u.get(`/resources/${rid}/accounts/${accountId}`),
      password: await u.get(`/resources/${rid}/accounts/${accountId}/password`),
      ids: await u.get(`/resources/getResourceIdAccountId?RESOURCENAME=shared-db&ACCOUNTNAME=${accountName}`),
      byName: await u.get('/resources/resourcename/shared-db'),
      byNames: await u.get(`/resources/resourcename/shared-db/accounts/accountname/${accountName}`),
      a2a: await u.get(`/resources/getResourceAccountDetails?RESOURCEID=${rid}&ACCOUNTID=${accountId}`),
      download: await u.get(`/resources/${rid}/accounts/${accountId}/downloadfile`),
    };
  }

  it('hides an unshared resource from other users (even administrators) on every path, leaking nothing', async () => {
    for (const name of ['alice', 'bob', 'boss']) {
      const paths = await everyPath(users[name].api, r.accountId, 'root');
      expect(paths.list.body.operation).toEqual({ name: 'GET RESOURCES', result: { status: 'Success', message: 'Resources fetched successfully' }, totalRows: 0 });
      expect(paths.search.body.operation.totalRows).toBe(0);
      for (const [path, res] of Object.entries(paths).filter(([p]) => !['list', 'search'].includes(p))) {
        expect([path, res.body.operation.result.status]).toEqual([path, 'Failed']);
        expect(res.body.operation.Details).toBeUndefined();
        expect(JSON.stringify(res.body)).not.toContain('Root-Secret');
      }
      expect(paths.accounts.body.operation.result.message).toBe('No such resource found');
      expect(paths.password.body.operation.result.message).toBe('No such account found');
    }
    const writes = [
      await users.bob.api.put(`/resources/${r.resourceId}/accounts/${r.accountId}/password`, { NEWPASSWORD: 'Hijack-Pass-123!' }),
      await users.bob.api.put(`/resources/${r.resourceId}`, { RESOURCEDESCRIPTION: 'mine now' }),
      await users.bob.api.put(`/resources/${r.resourceId}/accounts/${r.accountId}`, { NOTES: 'mine now' }),
      await users.bob.api.post(`/resources/${r.resourceId}/accounts`, { ACCOUNTLIST: [{ ACCOUNTNAME: 'x', PASSWORD: 'Xx-123456789!' }] }),
      await users.bob.api.put(`/resources/${r.resourceId}/share`, { ACCESSTYPE: 'fullaccess', USERID: String(users.bob.id) }),
      await users.bob.api.delete(`/resources/${r.resourceId}/accounts/${r.accountId}`),
      await users.bob.api.delete(`/resources/${r.resourceId}`),
      await users.bob.api.delete('/resources/resourcename/shared-db'),
    ];
    for (const res of writes) expect(res.body.operation.result.status).toBe('Failed');
    const [row] = await s.dataSource.query('SELECT description FROM resources WHERE id = $1', [r.resourceId]);
    expect(row.description).toBe('');
    expect(await s.dataSource.query('SELECT id FROM shares')).toEqual([]);
  });

  it('a view share shows the resource and releases passwords, but refuses a change', async () => {
    const res = await share('view', { USERID: users.alice.id });
    expect(res.body.operation).toEqual({ name: 'SHARE RESOURCE', result: { status: 'Success', message: 'Resource shared successfully' } });
    const paths = await everyPath(users.alice.api, r.accountId, 'root');
    expect(paths.list.body.operation.Details).toEqual([
      { 'RESOURCE ID': String(r.resourceId), 'RESOURCE NAME': 'shared-db', 'RESOURCE TYPE': 'Linux', 'RESOURCE DESCRIPTION': '', NOOFACCOUNTS: '2' },
    ]);
    expect(paths.password.body.operation.Details).toEqual({ PASSWORD: 'Root-Secret-123!' });
    expect(paths.ids.body.operation.Details).toEqual({ RESOURCEID: String(r.resourceId), ACCOUNTID: String(r.accountId) });
    expect(paths.byName.body.operation.Details).toEqual({ RESOURCEID: String(r.resourceId) });
    expect(JSON.parse(paths.a2a.body.operation.Details.ACCOUNTDETAILS).PASSWORD).toBe('Root-Secret-123!');
    expect(paths.accounts.body.operation.Details['ACCOUNT LIST'].map((a: Record<string, string>) => a['ACCOUNT NAME'])).toEqual(['app', 'root']);

    const change = await users.alice.api.put(`/resources/${r.resourceId}/accounts/${r.accountId}/password`, { NEWPASSWORD: 'Changed-Pass-123!' });
    expect(change.body.operation.result).toEqual({ status: 'Failed', message: 'You need modify access to account root to change its password' });
    const [audit] = await auditRows(s, `operation = 'Resource Shared'`);
    expect(audit).toMatchObject({ actor_name: 'admin', resource_name: 'shared-db', target: 'user alice', description: 'view access to user alice' });
  });

  it('a modify share allows a change; re-sharing replaces the old level; revoke removes it', async () => {
    await share('modify', { USERID: users.alice.id });
    expect(await s.dataSource.query('SELECT access_type FROM shares WHERE user_id = $1', [users.alice.id])).toEqual([{ access_type: 'modify' }]);
    const change = await users.alice.api.put(`/resources/${r.resourceId}/accounts/${r.accountId}/password`, { NEWPASSWORD: 'Changed-Pass-123!', REASON: 'rotate' });
    expect(change.body.operation.result).toEqual({ status: 'Success', message: 'Password changed successfully' });

    const revoke = await share('revoke', { USERID: users.alice.id });
    expect(revoke.body.operation.result).toEqual({ status: 'Success', message: 'Resource share revoked successfully' });
    expect((await users.alice.api.get('/resources')).body.operation.totalRows).toBe(0);
    const read = await users.alice.api.get(`/resources/${r.resourceId}/accounts/${r.accountId}/password`);
    expect(read.body.operation.result.message).toBe('No such account found');
  });

  it('only full access lets a non-owner edit, share or delete; modify does not', async () => {
    await share('modify', { USERID: users.bob.id });
    const edit = await users.bob.api.put(`/resources/${r.resourceId}`, { RESOURCEDESCRIPTION: 'by bob' });
    expect(edit.body.operation.result).toEqual({ status: 'Failed', message: 'You need full access to resource shared-db for this operation' });
    const reshare = await users.bob.api.put(`/resources/${r.resourceId}/share`, { ACCESSTYPE: 'view', USERID: String(users.alice.id) });
    expect(reshare.body.operation.result.status).toBe('Failed');

    await share('fullaccess', { USERID: users.bob.id });
    const ok = await users.bob.api.put(`/resources/${r.resourceId}`, { RESOURCEDESCRIPTION: 'by bob' });
    expect(ok.body.operation.result).toEqual({ status: 'Success', message: 'Resource  modified successfully.' });
    const reshared = await users.bob.api.put(`/resources/${r.resourceId}/share`, { ACCESSTYPE: 'read', USERID: String(users.alice.id) });
    expect(reshared.body.operation.result.status).toBe('Success');
    expect(await s.dataSource.query('SELECT access_type FROM shares WHERE user_id = $1', [users.alice.id])).toEqual([{ access_type: 'view' }]);
    await share('revoke', { USERID: users.alice.id });
  });

  it('an account-level share to a user group shows the resource with only that account', async () => {
    const [org] = await s.dataSource.query(`SELECT id FROM organizations WHERE name = 'Default'`);
    const [group] = await s.dataSource.query(`INSERT INTO user_groups (org_id, name, name_key) VALUES ($1, 'ops', 'ops') RETURNING id`, [org.id]);
    await s.dataSource.query('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2)', [group.id, users.carol.id]);
    const res = await share('view', { USERGROUPID: group.id }, `/resources/${r.resourceId}/accounts/${appAccountId}/share`);
    expect(res.body.operation).toEqual({ name: 'SHARE ACCOUNT', result: { status: 'Success', message: 'Account shared successfully' } });

    const carol = users.carol.api;
    const list = await carol.get('/resources');
    expect(list.body.operation.Details).toEqual([expect.objectContaining({ 'RESOURCE NAME': 'shared-db', NOOFACCOUNTS: '1' })]);
    // A page (LIMIT) is counted by another statement: the same entry and total.
    const page = await carol.get('/resources', { STARTINDEX: 0, LIMIT: 10 });
    expect(page.body.operation).toMatchObject({ Details: list.body.operation.Details, totalRows: 1 });
    const accounts = await carol.get(`/resources/${r.resourceId}/accounts`);
    expect(accounts.body.operation.Details['ACCOUNT LIST'].map((a: Record<string, string>) => a['ACCOUNT NAME'])).toEqual(['app']);
    expect((await carol.get(`/resources/${r.resourceId}/accounts/${appAccountId}/password`)).body.operation.Details).toEqual({ PASSWORD: 'App-Secret-456!' });

    const hidden = await everyPath(carol, r.accountId, 'root');
    for (const path of ['details', 'password', 'ids', 'byNames', 'a2a', 'download'] as const) {
      expect([path, hidden[path].body.operation.result.status]).toEqual([path, 'Failed']);
      expect(JSON.stringify(hidden[path].body)).not.toContain('Changed-Pass-123!');
    }
    // Visible resource, but an account-level share gives no rights on the resource itself.
    expect((await carol.put(`/resources/${r.resourceId}/accounts/${appAccountId}/password`, { NEWPASSWORD: 'Other-Pass-1234!' })).body.operation.result.status).toBe('Failed');

    await s.dataSource.query('DELETE FROM user_group_members WHERE user_id = $1', [users.carol.id]);
    expect((await carol.get('/resources')).body.operation.totalRows).toBe(0);
  });

  it('super admins see every resource of the organisation; a non-super Administrator sees only their own', async () => {
    const own = await createResource(s.vaultUrl, users.boss.token, { RESOURCENAME: 'boss-box' });
    const bossList = await users.boss.api.get('/resources');
    expect(bossList.body.operation.Details.map((x: Record<string, string>) => x['RESOURCE NAME'])).toEqual(['boss-box']);
    const adminList = await admin.get('/resources');
    expect(adminList.body.operation.Details.map((x: Record<string, string>) => x['RESOURCE NAME'])).toEqual(['boss-box', 'shared-db']);
    expect((await admin.get(`/resources/${own.resourceId}/accounts/${own.accountId}/password`)).body.operation.Details.PASSWORD).toBe(own.password);
  });

  it('refuses bad share input clearly and writes nothing', async () => {
    const before = await s.dataSource.query('SELECT count(*)::int AS n FROM shares');
    const cases: [Record<string, string>, string][] = [
      [{ ACCESSTYPE: 'owner', USERID: String(users.alice.id) }, 'ACCESSTYPE must be one of: view, read, modify, fullaccess, revoke'],
      [{ USERID: String(users.alice.id) }, 'ACCESSTYPE is required'],
      [{ ACCESSTYPE: 'view' }, 'Give either USERID or USERGROUPID'],
      [{ ACCESSTYPE: 'view', USERID: '1', USERGROUPID: '1' }, 'Give either USERID or USERGROUPID'],
      [{ ACCESSTYPE: 'view', USERID: 'abc' }, 'Invalid USERID: abc'],
      [{ ACCESSTYPE: 'view', USERID: '99999' }, 'No user with USERID 99999'],
      [{ ACCESSTYPE: 'view', USERGROUPID: '99999' }, 'No user group with USERGROUPID 99999'],
    ];
    for (const [details, message] of cases) {
      const res = await admin.put(`/resources/${r.resourceId}/share`, details);
      expect(res.body.operation.result).toEqual({ status: 'Failed', message });
    }
    expect(await s.dataSource.query('SELECT count(*)::int AS n FROM shares')).toEqual(before);
  });
});
