import request from 'supertest';
import { createResource } from '../support/factories';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { Json } from '../support/http';
import { createOrgWithAdmin } from './users-orgs';
import { vaultClient } from './vault-client';

const names = (res: request.Response): string[] => (res.body.operation.Details ?? []).map((r: Json) => r['RESOURCE NAME']).sort();

describe('resource groups (op 50) and group sharing', () => {
  let s: TestServices;
  let admin: ReturnType<typeof vaultClient>;
  let viewer: { id: number; token: string };
  let viewerClient: ReturnType<typeof vaultClient>;
  beforeAll(async () => {
    s = await startTestServices();
    admin = vaultClient(s, s.adminToken);
    viewer = await createUserWithToken(s, 'group-viewer', 'Password User');
    viewerClient = vaultClient(s, viewer.token);
  });
  afterAll(() => s.close());

  const createGroup = async (details: Json): Promise<number> => {
    const res = await admin.post('/resourcegroup', details);
    expect(res.body.operation).toMatchObject({ name: 'CREATE RESOURCE GROUP', result: { status: 'Success' } });
    return Number(res.body.operation.Details.RESOURCEGROUPID);
  };
  const share = (gid: number, details: Json, client = admin) => client.put(`/resourcegroup/${gid}/share`, details);

  it('creates a dynamic group whose membership is evaluated live', async () => {
    await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'web-01', ACCOUNTNAME: 'deploy' });
    await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'db-01', ACCOUNTNAME: 'postgres' });
    const res = await admin.post('/resourcegroup', {
      critgroup: 'Web servers', critdesc: 'all web-*', RuleCriteria: 'Resource', NoHelpDeskRetrieval: 'false', andor: 'and',
      NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'STARTS WITH', valuefield_1: 'web-',
    });
    expect(res.body.operation.result).toEqual({ status: 'Success', message: 'Resource group Web servers created successfully' });
    const gid = Number(res.body.operation.Details.RESOURCEGROUPID);
    expect(names(await admin.get(`/resourcegroup/${gid}/resources`))).toEqual(['web-01']);
    await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'WEB-02' });
    expect(names(await admin.get(`/resourcegroup/${gid}/resources`))).toEqual(['WEB-02', 'web-01']);
    const list = await admin.get('/resourcegroup');
    expect(list.body.operation.Details).toEqual([
      expect.objectContaining({ RESOURCEGROUPID: String(gid), RESOURCEGROUPNAME: 'Web servers', GROUPTYPE: 'Dynamic', NOOFRESOURCES: '2' }),
    ]);
  });

  it.each([
    [{ condition_1: 'LOGINNAME', operator_1: 'EQUALS', valuefield_1: 'postgres' }, ['db-01']],
    [{ condition_1: 'ACCOUNTNAME', operator_1: 'NOT CONTAINS', valuefield_1: 'p' }, ['WEB-02']],
    [{ condition_1: 'RESOURCENAME', operator_1: 'ENDS WITH', valuefield_1: '-01' }, ['db-01', 'web-01']],
    [{ condition_1: 'RESOURCETYPE', operator_1: 'NOT EQUALS', valuefield_1: 'linux' }, []],
    [{ condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: 'B-0' }, ['WEB-02', 'db-01', 'web-01']],
  ])('matches criterion %p', async (criterion, expected) => {
    const gid = await createGroup({ critgroup: `g-${JSON.stringify(criterion)}`, NoOfCriteria: '1', ...criterion });
    expect(names(await admin.get(`/resourcegroup/${gid}/resources`))).toEqual(expected);
  });

  it('combines criteria with and / or', async () => {
    const both = { condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: '01', condition_2: 'LOGINNAME', operator_2: 'EQUALS', valuefield_2: 'deploy' };
    const and = await createGroup({ critgroup: 'and-group', NoOfCriteria: 2, andor: 'and', ...both });
    const or = await createGroup({ critgroup: 'or-group', NoOfCriteria: 2, andor: 'or', ...both });
    expect(names(await admin.get(`/resourcegroup/${and}/resources`))).toEqual(['web-01']);
    expect(names(await admin.get(`/resourcegroup/${or}/resources`))).toEqual(['db-01', 'web-01']);
  });

  it.each([
    [{ NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: 'x' }, 'critgroup (the group name) is required'],
    [{ critgroup: 'bad1', NoOfCriteria: '2', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: 'x' }, 'condition_2 is required'],
    [{ critgroup: 'bad2', NoOfCriteria: '1', condition_1: 'OWNER', operator_1: 'CONTAINS', valuefield_1: 'x' }, 'condition_1 must be one of'],
    [{ critgroup: 'bad3', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'MATCHES', valuefield_1: 'x' }, 'operator_1 must be one of'],
    [{ critgroup: 'Web servers', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: 'x' }, 'Resource group Web servers already exists'],
  ])('refuses malformed input %p', async (details, message) => {
    const res = await admin.post('/resourcegroup', details);
    expect(res.body.operation.result.status).toBe('Failed');
    expect(res.body.operation.result.message).toMatch(message);
  });

  it('shares a dynamic group: members (even new ones) reach the user, others do not, revoke ends it', async () => {
    const gid = await createGroup({ critgroup: 'shared-dyn', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'STARTS WITH', valuefield_1: 'app-' });
    const app = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'app-01' });
    const other = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'other-01' });
    expect(names(await viewerClient.get('/resources'))).toEqual([]);
    const res = await share(gid, { ACCESSTYPE: 'view', USERID: String(viewer.id) });
    expect(res.body.operation).toMatchObject({ name: 'SHARE RESOURCE GROUP', result: { status: 'Success', message: 'Resource group shared-dyn shared successfully' } });
    expect(names(await viewerClient.get('/resources'))).toEqual(['app-01']);
    const password = await viewerClient.get(`/resources/${app.resourceId}/accounts/${app.accountId}/password`);
    expect(password.body.operation.Details.PASSWORD).toBe(app.password);
    expect((await viewerClient.get(`/resources/${other.resourceId}/accounts/${other.accountId}/password`)).body.operation.result.status).toBe('Failed');
    await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'app-02' });
    expect(names(await viewerClient.get('/resources'))).toEqual(['app-01', 'app-02']);
    // A view share does not allow a change.
    const change = await viewerClient.put(`/resources/${app.resourceId}/accounts/${app.accountId}/password`, { NEWPASSWORD: 'Changed-Pa55word!', RESETTYPE: 'LOCAL' });
    expect(change.body.operation.result.status).toBe('Failed');
    await share(gid, { ACCESSTYPE: 'revoke', USERID: String(viewer.id) });
    expect(names(await viewerClient.get('/resources'))).toEqual([]);
  });

  it('honours NoHelpDeskRetrieval: a Password User sees the resource but cannot read its password', async () => {
    const gid = await createGroup({
      critgroup: 'no-helpdesk', NoHelpDeskRetrieval: 'true', NoOfCriteria: '1',
      condition_1: 'RESOURCENAME', operator_1: 'STARTS WITH', valuefield_1: 'vault-core-',
    });
    const core = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'vault-core-1' });
    await share(gid, { ACCESSTYPE: 'view', USERID: String(viewer.id) });
    expect(names(await viewerClient.get('/resources'))).toContain('vault-core-1');
    const path = `/resources/${core.resourceId}/accounts/${core.accountId}/password`;
    const refused = await viewerClient.get(path);
    expect(refused.body.operation.result).toEqual({
      status: 'Failed',
      message: 'Password retrieval by help desk users is disabled for this resource',
    });
    expect(JSON.stringify(refused.body)).not.toContain(core.password);
    const [audit] = await s.dataSource.query(
      `SELECT operation, outcome FROM audit WHERE account_id = $1 AND actor_id = $2`, [core.accountId, viewer.id]);
    expect(audit).toEqual({ operation: 'Password Retrieval Denied', outcome: 'Failed' });
    // Administrators are not help desk users.
    expect((await admin.get(path)).body.operation.Details.PASSWORD).toBe(core.password);
    await share(gid, { ACCESSTYPE: 'revoke', USERID: String(viewer.id) });
  });

  it('shares a static group to a user group; membership and sharing apply to its members', async () => {
    const res = await admin.post('/resourcegroup', { critgroup: 'static-one', GROUPTYPE: 'static' });
    const gid = Number(res.body.operation.Details.RESOURCEGROUPID);
    const member = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'static-member' });
    await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'static-outsider' });
    const added = await admin.put(`/resourcegroup/${gid}/resources`, { RESOURCEIDS: [String(member.resourceId)] });
    expect(added.body.operation.result.message).toBe('1 resource(s) added to the resource group static-one');
    const groupie = await createUserWithToken(s, 'static-groupie', 'Password User');
    await admin.post('/user/addUserToUserGroup').query({ USERNAME: 'static-groupie', USERGROUPNAME: 'Static readers' });
    const [ug] = await s.dataSource.query(`SELECT id FROM user_groups WHERE name = 'Static readers'`);
    expect((await share(gid, { ACCESSTYPE: 'modify', USERGROUPID: String(ug.id) })).body.operation.result.status).toBe('Success');
    const client = vaultClient(s, groupie.token);
    expect(names(await client.get('/resources'))).toEqual(['static-member']);
    const change = await client.put(`/resources/${member.resourceId}/accounts/${member.accountId}/password`, { NEWPASSWORD: 'Changed-Pa55word!x', RESETTYPE: 'LOCAL' });
    expect(change.body.operation.result).toMatchObject({ status: 'Success' });
    const dynamicAdd = await admin.put(`/resourcegroup/${gid - 1}/resources`, { RESOURCEIDS: '1' });
    expect(dynamicAdd.body.operation.result.message).toMatch(/is dynamic|No such resource group/);
  });

  it('lets only a super administrator share a group (its members may be beyond the sharer)', async () => {
    const padmin = await createUserWithToken(s, 'group-padmin', 'Password Administrator');
    const client = vaultClient(s, padmin.token);
    const res = await client.post('/resourcegroup', { critgroup: 'padmin-group', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: '' });
    expect(res.body.operation.result.message).toBe('valuefield_1 is required');
    const made = await client.post('/resourcegroup', { critgroup: 'padmin-group', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: '-' });
    const gid = Number(made.body.operation.Details.RESOURCEGROUPID);
    // The creator sees only the members visible to them.
    expect(names(await client.get(`/resourcegroup/${gid}/resources`))).toEqual([]);
    const refused = await share(gid, { ACCESSTYPE: 'view', USERID: String(viewer.id) }, client);
    expect(refused.body.operation.result).toEqual({ status: 'Failed', message: 'Only a super administrator can share a resource group' });
    const viewerCreate = await viewerClient.post('/resourcegroup', { critgroup: 'nope' });
    expect(viewerCreate.body.operation.result.message).toMatch(/does not allow/);
  });

  it('keeps groups and their members invisible to another organisation', async () => {
    const acme = await createOrgWithAdmin(s, 'Acme Groups');
    const client = vaultClient(s, acme.token);
    const [group] = await s.dataSource.query(`SELECT id FROM resource_groups WHERE name = 'Web servers'`);
    expect((await client.get(`/resourcegroup/${group.id}/resources`)).body.operation.result.message).toBe('No such resource group found');
    expect((await client.get('/resourcegroup')).body.operation).toMatchObject({ totalRows: 0 });
    const gid = Number(
      (await client.post('/resourcegroup', { critgroup: 'Web servers', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: 'web' })).body.operation.Details
        .RESOURCEGROUPID,
    );
    expect(names(await client.get(`/resourcegroup/${gid}/resources`))).toEqual([]);
    expect((await share(gid, { ACCESSTYPE: 'view', USERID: String(viewer.id) }, client)).body.operation.result.message).toBe('No such user found');
  });

  it('deletes a group and its shares', async () => {
    const gid = await createGroup({ critgroup: 'to-delete', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: 'web' });
    await share(gid, { ACCESSTYPE: 'view', USERID: String(viewer.id) });
    expect((await admin.delete(`/resourcegroup/${gid}`)).body.operation.result.message).toBe('Resource group to-delete deleted successfully');
    expect(await s.dataSource.query('SELECT * FROM shares WHERE resource_group_id = $1', [gid])).toEqual([]);
    expect(names(await viewerClient.get('/resources'))).toEqual([]);
  });
});
