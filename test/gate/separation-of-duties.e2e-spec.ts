import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { call, TestUser, user, workflow } from '../vault/workflow-helpers';

const V = '/restapi/json/v1';

/*
 * Issue 34: an Administrator reached a secret, an approval and another organisation through
 * API users they created themselves, and lifted a help-desk restriction by deleting its group.
 * Each path below is refused, audited, and the secret stays where it was.
 */
describe('separation of duties: no one reaches a secret through an account they made', () => {
  let s: TestServices;
  let administrator: TestUser;
  let superAdmin: TestUser;
  const flow = () => workflow(s.vaultUrl);

  beforeAll(async () => {
    s = await startTestServices();
    administrator = await user(s, 'Administrator', 'sod-admin');
    const [admin] = await s.dataSource.query(`SELECT id, username FROM users WHERE is_super_admin ORDER BY id LIMIT 1`);
    superAdmin = { id: admin.id, token: s.adminToken, name: admin.username };
  });
  afterAll(() => s?.close());

  /** An API user made by `maker` through the API: its token, as the answer carries it. */
  const madeBy = async (maker: TestUser, name: string, role = 'Password User'): Promise<TestUser> => {
    const op = await call(s.vaultUrl, 'post', `${V}/user`, maker.token, { USERNAME: name, ROLE: role, ISAPIUSER: 'true', EMAIL: `${name}@example.test` });
    expect(op.result.status).toBe('Success');
    const [row] = await s.dataSource.query('SELECT id, controller_id FROM users WHERE username = $1', [name]);
    expect(row.controller_id).toBe(maker.id);
    return { id: row.id, token: op.Details.AUTHTOKEN, name };
  };
  const addToGroup = (actor: TestUser, username: string, group: string) => call(s.vaultUrl, 'post', `${V}/user/addUserToUserGroup`, actor.token, { USERNAME: username, USERGROUPNAME: group });
  const shareView = async (resourceId: number, to: Record<string, string>) =>
    expect((await call(s.vaultUrl, 'put', `${V}/resources/${resourceId}/share`, s.adminToken, { ACCESSTYPE: 'view', ...to })).result.status).toBe('Success');
  const groupId = async (name: string) => (await s.dataSource.query('SELECT id FROM user_groups WHERE name = $1', [name]))[0].id as number;

  it('a password shared to a group is not reached by adding an API user one made to it', async () => {
    const r = await createResource(s.vaultUrl, s.adminToken);
    const dbaMember = await user(s, 'Password User', 'sod-dba');
    expect((await addToGroup(superAdmin, dbaMember.name, 'dbas')).result.status).toBe('Success');
    expect((await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/share`, s.adminToken, { ACCESSTYPE: 'view', USERGROUPID: String(await groupId('dbas')) })).result.status).toBe('Success');
    const made = await madeBy(administrator, 'sod-made-1');
    const op = await addToGroup(administrator, made.name, 'dbas');
    expect(op.result).toEqual({ status: 'Failed', message: 'Only a super administrator can add sod-made-1 to a user group: it is an account you created, which counts as you' });
    expect((await flow().password(made, r.resourceId, r.accountId)).result.status).toBe('Failed');
    // And a group that carries shares takes members from a super administrator only, whoever they are.
    const stranger = await user(s, 'Password User', 'sod-stranger');
    expect((await addToGroup(administrator, stranger.name, 'dbas')).result).toEqual({
      status: 'Failed',
      message: 'Only a super administrator can add members to the user group dbas: it carries shares',
    });
    const share = await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/share`, administrator.token, { ACCESSTYPE: 'view', USERID: String(made.id) });
    expect(share.result.status).toBe('Failed');
  });

  it('two approvers made by the requester are the requester: neither joins the approver group, neither approval counts', async () => {
    const approversMember = await user(s, 'Password Administrator', 'sod-approver');
    expect((await addToGroup(superAdmin, approversMember.name, 'approvers')).result.status).toBe('Success');
    const r = await createResource(s.vaultUrl, s.adminToken);
    const ac = await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, s.adminToken, {
      APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 2, ADMINS_APPROVE: 'false', APPROVER_GROUPS: 'approvers', EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30,
    });
    expect(ac.result.status).toBe('Success');
    expect((await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/share`, s.adminToken, { ACCESSTYPE: 'view', USERID: String(administrator.id) })).result.status).toBe('Success');
    await shareView(r.resourceId, { USERGROUPID: String(await groupId('approvers')) });
    expect((await flow().request(administrator, r.accountId, { REASON: 'maintenance' })).result.status).toBe('Success');
    const [x, y] = [await madeBy(administrator, 'sod-approver-x', 'Password Administrator'), await madeBy(administrator, 'sod-approver-y', 'Password Administrator')];
    expect((await addToGroup(administrator, x.name, 'approvers')).result.message).toMatch(/it is an account you created, which counts as you/);
    const stranger = await user(s, 'Password Administrator', 'sod-stranger-2');
    expect((await addToGroup(administrator, stranger.name, 'approvers')).result).toEqual({
      status: 'Failed',
      message: 'Only a super administrator can add members to the user group approvers: it carries shares, approver rights',
    });
    // Even where they are approvers (a super administrator added them), their approvals are the requester's own.
    for (const made of [x, y]) expect((await addToGroup(superAdmin, made.name, 'approvers')).result.status).toBe('Success');
    for (const made of [x, y]) {
      expect((await flow().approve(made, r.accountId, administrator.id)).result.message).toBe(
        'You cannot approve this request: your account was created by the requester, which counts as the requester',
      );
    }
    const [request] = await s.dataSource.query(`SELECT status, approved_by FROM password_requests WHERE account_id = $1`, [r.accountId]);
    expect(request).toEqual({ status: 'waiting', approved_by: [] });
    expect((await flow().checkout(administrator, r.accountId)).result.status).toBe('Failed');
  });

  it('one person approving through an account they made counts once', async () => {
    const requester = await user(s, 'Password User', 'sod-requester');
    const approver = await user(s, 'Administrator', 'sod-approver-2');
    expect((await addToGroup(superAdmin, approver.name, 'approvers-2')).result.status).toBe('Success');
    const alias = await madeBy(approver, 'sod-alias', 'Password Administrator');
    expect((await addToGroup(superAdmin, alias.name, 'approvers-2')).result.status).toBe('Success');
    const r = await createResource(s.vaultUrl, s.adminToken);
    await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, s.adminToken, {
      APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 2, ADMINS_APPROVE: 'false', APPROVER_GROUPS: 'approvers-2', EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30,
    });
    await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/share`, s.adminToken, { ACCESSTYPE: 'view', USERID: String(requester.id) });
    await shareView(r.resourceId, { USERGROUPID: String(await groupId('approvers-2')) });
    expect((await flow().request(requester, r.accountId, { REASON: 'maintenance' })).result.status).toBe('Success');
    expect((await flow().approve(approver, r.accountId, requester.id)).result.status).toBe('Success');
    expect((await flow().approve(alias, r.accountId, requester.id)).result.message).toBe(
      'This request was already approved by you through another account (one created by the other)',
    );
    const [request] = await s.dataSource.query(`SELECT status FROM password_requests WHERE account_id = $1`, [r.accountId]);
    expect(request.status).toBe('waiting');
  });

  it('approvers the requester named after asking do not count', async () => {
    const colleague = await user(s, 'Administrator', 'sod-colleague');
    const r = await createResource(s.vaultUrl, s.adminToken);
    const settings = { APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 1, ADMINS_APPROVE: 'false', EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30 };
    expect((await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, s.adminToken, { ...settings, APPROVER_USERS: superAdmin.name })).result.status).toBe('Success');
    expect((await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/share`, s.adminToken, { ACCESSTYPE: 'fullaccess', USERID: String(administrator.id) })).result.status).toBe('Success');
    expect((await flow().request(administrator, r.accountId, { REASON: 'maintenance' })).result.status).toBe('Success');
    await shareView(r.resourceId, { USERID: String(colleague.id) });
    const renamed = await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, administrator.token, { ...settings, APPROVER_USERS: colleague.name });
    expect(renamed.result.status).toBe('Success');
    expect((await flow().approve(colleague, r.accountId, administrator.id)).result.message).toBe('You cannot approve this request: the requester changed the approvers after asking');
  });

  it('an approver the account is not shared with may reject but not approve', async () => {
    const requester = await user(s, 'Password User', 'sod-requester-3');
    const unseeing = await user(s, 'Administrator', 'sod-unseeing');
    const r = await createResource(s.vaultUrl, s.adminToken);
    const settings = { APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 1, ADMINS_APPROVE: 'false', EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30, APPROVER_USERS: unseeing.name };
    expect((await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, s.adminToken, settings)).result.status).toBe('Success');
    await shareView(r.resourceId, { USERID: String(requester.id) });
    expect((await flow().request(requester, r.accountId, { REASON: 'maintenance' })).result.status).toBe('Success');
    expect((await flow().approve(unseeing, r.accountId, requester.id)).result).toEqual({
      status: 'Failed',
      message: 'You cannot approve this request: the account is not shared with you (an approver must be able to see the account)',
    });
    const [waiting] = await s.dataSource.query(`SELECT status, approved_by FROM password_requests WHERE account_id = $1`, [r.accountId]);
    expect(waiting).toEqual({ status: 'waiting', approved_by: [] });
    expect((await flow().reject(unseeing, r.accountId, requester.id)).result.status).toBe('Success');
  });

  it('organisation access granted to a group is not taken by adding a made account to it', async () => {
    const beta = await createOrgWithAdmin(s, `Beta ${process.pid}`);
    const opsMember = await user(s, 'Administrator', 'sod-ops');
    expect((await addToGroup(superAdmin, opsMember.name, 'ops')).result.status).toBe('Success');
    const granted = await call(s.vaultUrl, 'post', `${V}/organizations/manage`, s.adminToken, { userGroupIds: [await groupId('ops')], orgIds: [String(beta.orgId)], managePermission: 'grant' });
    expect(granted.result.status).toBe('Success');
    const made = await madeBy(administrator, 'sod-made-ops', 'Administrator');
    expect((await addToGroup(administrator, made.name, 'ops')).result.message).toMatch(/it is an account you created, which counts as you/);
    const stranger = await user(s, 'Administrator', 'sod-stranger-3');
    expect((await addToGroup(administrator, stranger.name, 'ops')).result).toEqual({
      status: 'Failed',
      message: 'Only a super administrator can add members to the user group ops: it carries access to another organisation',
    });
    expect(await s.dataSource.query('SELECT 1 FROM user_group_members gm JOIN user_groups g ON g.id = gm.group_id WHERE g.name = $1 AND gm.user_id = $2', ['ops', made.id])).toEqual([]);
  });

  it('a help-desk restriction is not lifted by deleting its group without full access to its resources', async () => {
    const creator = await user(s, 'Password Administrator', 'sod-group-creator');
    const created = await call(s.vaultUrl, 'post', `${V}/resourcegroup`, creator.token, { critgroup: `nohelp-${process.pid}`, GROUPTYPE: 'static', NoHelpDeskRetrieval: 'true' });
    expect(created.result.status).toBe('Success');
    const gid = Number(created.Details.RESOURCEGROUPID);
    const hidden = await createResource(s.vaultUrl, s.adminToken);
    expect((await call(s.vaultUrl, 'post', `${V}/resourcegroup/${gid}/associateResources`, s.adminToken, { RESOURCEIDS: [hidden.resourceId] })).result.status).toBe('Success');
    const op = await deleteGroup(s, creator, gid);
    expect(op.result.status).toBe('Failed');
    expect(op.result.message).toMatch(/^You need full access to every resource of nohelp-\d+ to delete it/);
    expect(await s.dataSource.query('SELECT id FROM resource_groups WHERE id = $1', [gid])).toHaveLength(1);
  });

  it('an account made inside another organisation through a grant is locked when the grant is revoked', async () => {
    const gamma = await createOrgWithAdmin(s, `Gamma ${process.pid}`);
    const granted = await call(s.vaultUrl, 'post', `${V}/organizations/manage`, s.adminToken, { userIds: [String(administrator.id)], orgIds: [String(gamma.orgId)], managePermission: 'grant' });
    expect(granted.result.status).toBe('Success');
    const made = await request(s.vaultUrl).post(`${V}/user`).set('AUTHTOKEN', administrator.token).set('orgName', `Gamma ${process.pid}`).type('form')
      .send({ INPUT_DATA: JSON.stringify({ operation: { Details: { USERNAME: 'gamma-made', ROLE: 'Administrator', ISAPIUSER: 'true', EMAIL: 'g@example.test' } } }) });
    expect(made.body.operation.result.status).toBe('Success');
    const token = made.body.operation.Details.AUTHTOKEN;
    expect((await request(s.vaultUrl).get(`${V}/resources`).set('AUTHTOKEN', token)).body.operation.result.status).toBe('Success');
    const revoked = await call(s.vaultUrl, 'post', `${V}/organizations/manage`, s.adminToken, { userIds: [String(administrator.id)], orgIds: [String(gamma.orgId)], managePermission: 'revoke' });
    expect(revoked.result.status).toBe('Success');
    expect((await request(s.vaultUrl).get(`${V}/resources`).set('AUTHTOKEN', token)).body.operation.result.status).toBe('Failed');
    const [row] = await s.dataSource.query(`SELECT locked FROM users WHERE username = 'gamma-made' AND org_id = $1`, [gamma.orgId]);
    expect(row.locked).toBe(true);
    const audit = await s.dataSource.query(`SELECT description FROM audit WHERE operation = 'User Locked' AND org_id = $1`, [gamma.orgId]);
    expect(audit).toEqual([{ description: `made by ${administrator.name} through organisation access, now revoked` }]);
  });
});

async function deleteGroup(s: TestServices, actor: TestUser, gid: number) {
  const res = await request(s.vaultUrl).delete(`${V}/resourcegroup/${gid}`).set('AUTHTOKEN', actor.token);
  return res.body.operation;
}