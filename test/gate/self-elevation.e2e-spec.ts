import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { call, share, TestUser, user, workflow } from '../vault/workflow-helpers';

const V = '/restapi/json/v1';

/**
 * Issue 24, item 6: a user who is not a super administrator cannot widen their own access:
 * joining a user group, sharing to themselves or to a group they belong to, or changing or
 * lifting the access control of an account they lack full access to. Failed and audited;
 * a super administrator can, audited.
 */
describe('no self-elevation', () => {
  let s: TestServices;
  let owner: TestUser;
  let administrator: TestUser;
  let superAdmin: TestUser;

  const maxAudit = async () => Number((await s.dataSource.query('SELECT coalesce(max(id), 0) AS id FROM audit'))[0].id);
  const auditSince = (after: number, actorId: number) =>
    s.dataSource.query(`SELECT operation, outcome, description FROM audit WHERE id > $1 AND actor_id = $2 ORDER BY id`, [after, actorId]);
  const groupMembers = async (group: string): Promise<number[]> =>
    (await s.dataSource.query('SELECT m.user_id FROM user_group_members m JOIN user_groups g ON g.id = m.group_id WHERE g.name = $1 ORDER BY 1', [group])).map(
      (r: { user_id: number }) => r.user_id,
    );
  const addToGroup = (actor: TestUser, username: string, group: string) =>
    call(s.vaultUrl, 'post', `${V}/user/addUserToUserGroup`, actor.token, { USERNAME: username, USERGROUPNAME: group });

  beforeAll(async () => {
    s = await startTestServices();
    owner = await user(s, 'Password Administrator', 'se-owner');
    administrator = await user(s, 'Administrator', 'se-admin');
    const [admin] = await s.dataSource.query(`SELECT id, username FROM users WHERE is_super_admin ORDER BY id LIMIT 1`);
    superAdmin = { id: admin.id, token: s.adminToken, name: admin.username };
  });
  afterAll(() => s.close());

  it('an administrator cannot add themselves to a user group whose shares would reach them; a super administrator can, audited', async () => {
    const r = await createResource(s.vaultUrl, owner.token);
    const group = `se-readers-${process.pid}`;
    const reader = await user(s, 'Password User', 'se-reader');
    expect((await addToGroup(superAdmin, reader.name, group)).result.status).toBe('Success');
    const [g] = await s.dataSource.query('SELECT id FROM user_groups WHERE name = $1', [group]);
    expect((await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/share`, owner.token, { ACCESSTYPE: 'view', USERGROUPID: String(g.id) })).result.status).toBe('Success');

    const from = await maxAudit();
    const op = await addToGroup(administrator, administrator.name, group);
    expect(op.result).toEqual({ status: 'Failed', message: 'Only a super administrator can add themselves to a user group' });
    expect(await groupMembers(group)).toEqual([reader.id]);
    expect(await auditSince(from, administrator.id)).toEqual([
      { operation: 'User Added To Group', outcome: 'Failed', description: `refused: adding oneself to user group ${group}` },
    ]);
    const read = await call(s.vaultUrl, 'get', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/password`, administrator.token);
    expect(read.result.status).toBe('Failed');

    // Issue 34: a group that holds shares is a super administrator's to add members to, whoever the member.
    const other = await user(s, 'Password User', 'se-other');
    expect((await addToGroup(administrator, other.name, group)).result).toEqual({
      status: 'Failed',
      message: `Only a super administrator can add members to the user group ${group}: it carries shares`,
    });
    const fromSuper = await maxAudit();
    expect((await addToGroup(superAdmin, superAdmin.name, group)).result.status).toBe('Success');
    expect(await auditSince(fromSuper, superAdmin.id)).toEqual([expect.objectContaining({ operation: 'User Added To Group', outcome: 'Success' })]);
  });

  it('no one but a super administrator shares to themselves or to a group they belong to', async () => {
    const r = await createResource(s.vaultUrl, owner.token);
    const holder = await user(s, 'Password Administrator', 'se-holder');
    await share(s, r.resourceId, holder.id, 'view');
    await s.dataSource.query(`INSERT INTO shares (resource_id, account_id, user_id, access_type) VALUES ($1, $2, $3, 'fullaccess')`, [r.resourceId, r.accountId, holder.id]);
    const group = `se-team-${process.pid}`;
    expect((await addToGroup(superAdmin, holder.name, group)).result.status).toBe('Success');
    const [g] = await s.dataSource.query('SELECT id FROM user_groups WHERE name = $1', [group]);
    const shares = async () => Number((await s.dataSource.query('SELECT count(*)::int AS n FROM shares WHERE resource_id = $1', [r.resourceId]))[0].n);
    const before = await shares();

    const from = await maxAudit();
    for (const grantee of [{ USERID: String(holder.id) }, { USERGROUPID: String(g.id) }]) {
      const op = await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/share`, holder.token, { ACCESSTYPE: 'fullaccess', ...grantee });
      expect(op.result).toEqual({ status: 'Failed', message: 'Only a super administrator can share to themselves, to an account they created, or to a user group that includes either' });
    }
    expect(await shares()).toBe(before);
    const rows = await auditSince(from, holder.id);
    expect(rows).toEqual([
      expect.objectContaining({ operation: 'Account Shared', outcome: 'Failed' }),
      expect.objectContaining({ operation: 'Account Shared', outcome: 'Failed' }),
    ]);

    const [superGroup] = await s.dataSource.query('SELECT id FROM user_groups WHERE name = $1', [`se-readers-${process.pid}`]);
    const fromSuper = await maxAudit();
    const op = await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/share`, superAdmin.token, { ACCESSTYPE: 'view', USERGROUPID: String(superGroup.id) });
    expect(op.result.status).toBe('Success');
    expect(await auditSince(fromSuper, superAdmin.id)).toEqual([expect.objectContaining({ operation: 'Resource Shared', outcome: 'Success' })]);
  });

  it('an administrator who only sees an account cannot lift or change its access control; with full access they can', async () => {
    const r = await createResource(s.vaultUrl, owner.token);
    const configure = (u: TestUser, details: Record<string, unknown>) => call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, u.token, details);
    expect((await configure(owner, { APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 2, ADMINS_APPROVE: 'true' })).result.status).toBe('Success');
    await share(s, r.resourceId, administrator.id, 'view');
    const controls = () => s.dataSource.query('SELECT approvers_required FROM access_controls WHERE account_id = $1', [r.accountId]);

    const from = await maxAudit();
    for (const details of [{ ENABLED: 'false' }, { APPROVAL_REQUIRED: 'false' }]) {
      const op = await configure(administrator, details);
      expect(op.result).toEqual({ status: 'Failed', message: `You need full access to account ${r.accountName} to configure its access control` });
    }
    expect(await controls()).toEqual([{ approvers_required: 2 }]);
    expect(await auditSince(from, administrator.id)).toEqual([
      { operation: 'Access Control Configured', outcome: 'Failed', description: `refused: no full access to account ${r.accountName}` },
      { operation: 'Access Control Configured', outcome: 'Failed', description: `refused: no full access to account ${r.accountName}` },
    ]);
    // The password stays behind the two approvers.
    expect((await workflow(s.vaultUrl).password(administrator, r.resourceId, r.accountId)).result.message).toMatch(/request it and check it out first/);

    await s.dataSource.query(`UPDATE shares SET access_type = 'fullaccess' WHERE resource_id = $1 AND user_id = $2`, [r.resourceId, administrator.id]);
    expect((await configure(administrator, { ENABLED: 'false' })).result.status).toBe('Success');
    expect(await controls()).toEqual([]);
  });
});
