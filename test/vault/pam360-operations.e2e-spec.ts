import request from 'supertest';
import { createResource } from '../support/factories';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { Json } from '../support/http';
import { shareToUser } from '../support/sharing';
import { createOrgWithAdmin } from './users-orgs';
import { auditRows } from './vault-client';

const PREFIX = '/restapi/json/v1';

/**
 * Calls as a PAM360 automation client makes them: token header, an optional orgName header,
 * writes with the raw, unencoded body `INPUT_DATA={json}` labelled text/json, reads with
 * INPUT_DATA in the query (`curl -G --data-urlencode`).
 */
function pamClient(s: TestServices, token: string, orgName?: string) {
  const base = (req: request.Test) => (orgName === undefined ? req : req.set('orgName', orgName)).set('AUTHTOKEN', token);
  const raw = (req: request.Test, details?: Json, wrapper = 'Details') =>
    details ? base(req).set('Content-Type', 'text/json').send(`INPUT_DATA=${JSON.stringify({ operation: { [wrapper]: details } })}`) : base(req);
  return {
    get: (path: string, details?: Json, wrapper = 'Details') =>
      details ? base(request(s.vaultUrl).get(PREFIX + path)).query({ INPUT_DATA: JSON.stringify({ operation: { [wrapper]: details } }) }) : base(request(s.vaultUrl).get(PREFIX + path)),
    post: (path: string, details?: Json, wrapper?: string) => raw(request(s.vaultUrl).post(PREFIX + path), details, wrapper),
    put: (path: string, details?: Json) => raw(request(s.vaultUrl).put(PREFIX + path), details),
  };
}

const op = (res: request.Response): Json => res.body.operation;
const ok = (res: request.Response): Json => {
  expect(op(res).result).toEqual({ status: 'Success', message: expect.any(String) });
  return op(res);
};
const failed = (res: request.Response, message: string | RegExp) => {
  expect(res.status).toBe(200);
  expect(op(res).result).toEqual({ status: 'Failed', message: typeof message === 'string' ? message : expect.stringMatching(message) });
};

describe('PAM360 operations on the vault (issue 29)', () => {
  let s: TestServices;
  let admin: ReturnType<typeof pamClient>;
  let defaultOrgId: number;
  let other: { orgId: number; adminId: number; token: string };
  let pa: { id: number; token: string };
  let puser: { id: number; token: string };

  beforeAll(async () => {
    s = await startTestServices();
    admin = pamClient(s, s.adminToken);
    [{ id: defaultOrgId }] = await s.dataSource.query(`SELECT id FROM organizations WHERE name = 'Default'`);
    other = await createOrgWithAdmin(s, 'Acme');
    pa = await createUserWithToken(s, 'pam-pa', 'Password Administrator');
    puser = await createUserWithToken(s, 'pam-user', 'Password User');
  });
  afterAll(() => s.close());

  describe('look-ups', () => {
    it('finds resource and account ids by name in the path, only for resources the caller sees', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'pam-lookup', ACCOUNTNAME: 'svc' });
      expect(ok(await admin.get('/resources/resourcename/pam-lookup')).Details).toEqual({ RESOURCEID: String(r.resourceId) });
      const both = ok(await admin.get('/resources/resourcename/PAM-LOOKUP/accounts/accountname/svc'));
      expect(both).toMatchObject({ name: 'GET_RESOURCEACCOUNTID', Details: { RESOURCEID: String(r.resourceId), ACCOUNTID: String(r.accountId) } });
      failed(await pamClient(s, puser.token).get('/resources/resourcename/pam-lookup'), 'No resource named pam-lookup found');
      failed(await pamClient(s, other.token).get('/resources/resourcename/pam-lookup/accounts/accountname/svc'), /^No (resource|account)/);
    });

    it('answers getUserGroupId by name within the organisation', async () => {
      await s.dataSource.query(`INSERT INTO user_groups (org_id, name, name_key) VALUES ($1, 'DB Admins', 'db admins'), ($2, 'Acme Ops', 'acme ops')`, [defaultOrgId, other.orgId]);
      const [group] = await s.dataSource.query(`SELECT id FROM user_groups WHERE name = 'DB Admins'`);
      const res = await admin.get('/user/getUserGroupId?USERGROUPNAME=db%20admins');
      expect(op(res)).toEqual({
        name: 'get_USERGROUPID',
        result: { status: 'Success', message: 'User group ID fetched successfully' },
        Details: { USERGROUPID: String(group.id) },
      });
      failed(await admin.get('/user/getUserGroupId?USERGROUPNAME=Acme%20Ops'), 'No user group named Acme Ops found');
      failed(await pamClient(s, puser.token).get('/user/getUserGroupId?USERGROUPNAME=DB%20Admins'), 'Your role (Password User) does not allow this operation');
      // With orgName, the provider's super administrator looks in that organisation.
      expect(ok(await pamClient(s, s.adminToken, 'acme').get('/user/getUserGroupId?USERGROUPNAME=Acme%20Ops')).Details.USERGROUPID).toMatch(/^\d+$/);
    });

    it('lists the organisations a caller may name in orgName', async () => {
      const all = ok(await admin.get('/organizations'));
      expect(all).toMatchObject({ name: 'GET ORGANIZATIONS', totalRows: 2 });
      expect(all.Details).toEqual([
        { orgId: String(defaultOrgId), orgName: 'Default', displayName: 'Default' },
        { orgId: String(other.orgId), orgName: 'Acme', displayName: 'Acme' },
      ]);
      // Another organisation's super administrator and an ordinary user see their own only.
      expect(ok(await pamClient(s, other.token).get('/organizations')).Details).toEqual([{ orgId: String(other.orgId), orgName: 'Acme', displayName: 'Acme' }]);
      expect(ok(await pamClient(s, puser.token).get('/organizations')).Details.map((o: Json) => o.displayName)).toEqual(['Default']);
    });
  });

  describe('header orgName on every operation', () => {
    let acmeResource: { resourceId: number; accountId: number; password: string };
    beforeAll(async () => {
      acmeResource = await createResource(s.vaultUrl, other.token, { RESOURCENAME: 'acme-db', ACCOUNTNAME: 'dba' });
    });

    it('lets the provider super administrator act in another organisation, audited there under its own name', async () => {
      const acme = pamClient(s, s.adminToken, 'ACME');
      const list = ok(await acme.get('/resources'));
      expect(list.Details.map((r: Json) => r['RESOURCE NAME'])).toEqual(['acme-db']);
      // The hot read path (lean route) and a lean write both honour the header.
      const read = ok(await acme.get(`/resources/${acmeResource.resourceId}/accounts/${acmeResource.accountId}/password`));
      expect(read.Details.PASSWORD).toBe(acmeResource.password);
      ok(await acme.post('/resources', { RESOURCENAME: 'made-in-acme' }));
      // A change takes the gate's full decision (the one-statement change reads the caller's own organisation).
      ok(await acme.put(`/resources/${acmeResource.resourceId}/accounts/${acmeResource.accountId}/password`, { NEWPASSWORD: 'Acme-Changed-123!', RESETTYPE: 'LOCAL', REASON: 'rotation' }));
      expect(ok(await pamClient(s, other.token).get(`/resources/${acmeResource.resourceId}/accounts/${acmeResource.accountId}/password`)).Details.PASSWORD).toBe('Acme-Changed-123!');
      const [changed] = await auditRows(s, `operation = 'Password Changed' AND resource_id = $1`, [acmeResource.resourceId]);
      expect(changed).toMatchObject({ org_id: other.orgId, actor_name: 'admin' });
      const [provider] = await s.dataSource.query(`SELECT id FROM users WHERE org_id = $1 AND username = 'admin'`, [defaultOrgId]);
      const rows = await auditRows(s, `operation IN ('Password Retrieved', 'Resource Added') AND resource_name IN ('acme-db', 'made-in-acme') AND actor_id = $1`, [provider.id]);
      expect(rows.map((r) => [r.operation, r.org_id])).toEqual([
        ['Password Retrieved', other.orgId],
        ['Resource Added', other.orgId],
      ]);
      const [made] = await s.dataSource.query(`SELECT org_id FROM resources WHERE name = 'made-in-acme'`);
      expect(made.org_id).toBe(other.orgId);
      // Its own organisation, named in any case, is the default.
      expect((ok(await pamClient(s, s.adminToken, 'default').get('/resources')).Details ?? []).map((r: Json) => r['RESOURCE NAME'])).not.toContain('acme-db');
    });

    it('refuses anyone else naming another organisation exactly like an unknown one, on reads, writes and secrets', async () => {
      const fromAcme = pamClient(s, other.token, 'Default');
      const target = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'default-secret' });
      for (const res of [
        await fromAcme.get('/resources'),
        await fromAcme.get(`/resources/${target.resourceId}/accounts/${target.accountId}/password`),
        await fromAcme.post('/resources', { RESOURCENAME: 'sneaked-in' }),
        await fromAcme.get('/resourcegroup'),
        await fromAcme.put('/resourcegroup/share', { resourceGroupIds: ['1'], userIds: ['1'], accessType: 'fullaccess' }),
      ]) {
        failed(res, 'No organisation named Default');
      }
      failed(await pamClient(s, other.token, 'Nowhere').get('/resources'), 'No organisation named Nowhere');
      // A provider user who is not a super administrator cannot either.
      failed(await pamClient(s, pa.token, 'Acme').get('/resources'), 'No organisation named Acme');
      failed(await pamClient(s, puser.token, 'Acme').get(`/resources/${acmeResource.resourceId}/accounts/${acmeResource.accountId}/password`), 'No organisation named Acme');
      expect(await s.dataSource.query(`SELECT id FROM resources WHERE name = 'sneaked-in'`)).toEqual([]);
      expect(await auditRows(s, `operation = 'Password Retrieved' AND resource_id = $1`, [target.resourceId])).toEqual([]);
    });

    it('is not a header of the key manager, which ignores it', async () => {
      const res = await request(s.pkiUrl).get('/api/pki/restapi/getAllSSLCertificates').set('AUTHTOKEN', other.token).set('orgName', 'Default');
      expect(res.body).toMatchObject({ name: 'GetAllSSLCertificates', result: { status: 'Success' } });
    });
  });

  describe('resource groups', () => {
    let web: { resourceId: number; accountId: number };
    let db: { resourceId: number; accountId: number };
    let gid: number;

    beforeAll(async () => {
      web = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'rg-web' });
      db = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'rg-db' });
      const made = ok(await admin.post('/resourcegroup', { critgroup: 'PAM static', critdesc: 'web tier', GROUPTYPE: 'static' }));
      gid = Number(made.Details.RESOURCEGROUPID);
      ok(await admin.post('/resourcegroup', { critgroup: 'PAM dynamic', critdesc: 'all rg-', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'STARTS WITH', valuefield_1: 'rg-' }));
    });

    it('associates resources given as numbers and as strings, audited; the answer names the group', async () => {
      const res = await admin.post(`/resourcegroup/${gid}/associateResources`, { RESOURCEIDS: [web.resourceId] });
      expect(op(res)).toEqual({ name: 'ASSOCIATE RESOURCES', result: { status: 'Success', message: '1 resource(s) added to the resource group PAM static' } });
      ok(await admin.post(`/resourcegroup/${String(gid)}/associateResources`, { RESOURCEIDS: [String(db.resourceId), String(web.resourceId)] }));
      const members = await s.dataSource.query('SELECT resource_id FROM resource_group_members WHERE group_id = $1 ORDER BY resource_id', [gid]);
      expect(members.map((m: Json) => m.resource_id)).toEqual([web.resourceId, db.resourceId].sort((a, b) => a - b));
      const audit = await auditRows(s, `operation = 'Resource Group Modified' AND target = 'PAM static'`);
      expect(audit.map((a) => a.description)).toEqual(['added rg-web', expect.stringMatching(/^added (rg-db, rg-web|rg-web, rg-db)$/)]);
      expect(audit[0]).toMatchObject({ actor_name: 'admin', org_id: defaultOrgId, outcome: 'Success' });
    });

    it('lists the groups a resource belongs to, static and dynamic', async () => {
      const res = ok(await admin.get(`/resources/${web.resourceId}/associatedGroups`));
      expect(res.name).toBe('GET ASSOCIATED GROUPS');
      expect(res.Details).toEqual({
        'RESOURCE ID': String(web.resourceId),
        'RESOURCE NAME': 'rg-web',
        'ASSOCIATED GROUPS': [
          { 'GROUP ID': expect.stringMatching(/^\d+$/), 'GROUP NAME': 'PAM dynamic', 'GROUP DESCRIPTION': 'all rg-', 'GROUP TYPE': 'Dynamic' },
          { 'GROUP ID': String(gid), 'GROUP NAME': 'PAM static', 'GROUP DESCRIPTION': 'web tier', 'GROUP TYPE': 'Static' },
        ],
      });
      // A view share is enough to see them; no share, or another organisation, is not.
      await shareToUser(s.dataSource, web.resourceId, puser.id, 'view');
      expect(ok(await pamClient(s, puser.token).get(`/resources/${web.resourceId}/associatedGroups`)).Details['ASSOCIATED GROUPS']).toHaveLength(2);
      failed(await pamClient(s, puser.token).get(`/resources/${db.resourceId}/associatedGroups`), 'No such resource found');
      failed(await pamClient(s, other.token).get(`/resources/${web.resourceId}/associatedGroups`), 'No such resource found');
    });

    it('lists groups with PAM360 keys beside the earlier ones, searched and paged', async () => {
      const all = ok(await admin.get('/resourcegroup'));
      const mine = all.Details.find((g: Json) => g.resourceGroupName === 'PAM static');
      expect(mine).toMatchObject({
        resourceGroupId: String(gid),
        resourceGroupName: 'PAM static',
        resourceGroupDescription: 'web tier',
        resourceGroupType: 'static',
        ownerId: expect.stringMatching(/^\d+$/),
        RESOURCEGROUPID: String(gid),
        RESOURCEGROUPNAME: 'PAM static',
        GROUPTYPE: 'Static',
        NOOFRESOURCES: '2',
      });
      const search = (details: Json) => admin.get('/resourcegroup', details, 'details');
      const statics = ok(await search({ searchType: 'static', searchValue: 'pam', searchColumn: 'resourceGroupName' }));
      expect(statics.Details.map((g: Json) => g.resourceGroupName)).toEqual(['PAM static']);
      expect(ok(await search({ searchValue: 'all rg', searchColumn: 'resourceGroupDescription' })).Details.map((g: Json) => g.resourceGroupName)).toEqual(['PAM dynamic']);
      const page = ok(await search({ limit: '1', startIndex: 1, searchValue: 'PAM' }));
      expect(page).toMatchObject({ totalRows: 2, Details: [expect.objectContaining({ resourceGroupName: 'PAM static' })] });
      failed(await search({ searchType: 'smart' }), 'searchType must be one of: static, dynamic, all');
      // GROUPID narrows the resource list (and an account list) to the group's members.
      const members = ok(await admin.get('/resources', { GROUPID: String(gid) }));
      expect(members.Details.map((r: Json) => r['RESOURCE NAME']).sort()).toEqual(['rg-db', 'rg-web']);
      expect(ok(await admin.get(`/resources/${web.resourceId}/accounts`, { GROUPID: gid })).totalRows).toBe(1);
      expect(ok(await admin.get(`/resources/${web.resourceId}/accounts`, { GROUPID: gid + 1000 })).totalRows).toBe(0);
    });

    it('refuses an association that would hand out access the caller lacks, and writes nothing', async () => {
      const creator = await createUserWithToken(s, 'rg-creator', 'Password Administrator');
      const client = pamClient(s, creator.token);
      const own = ok(await client.post('/resourcegroup', { critgroup: 'creator group', GROUPTYPE: 'static' }));
      const ownGid = Number(own.Details.RESOURCEGROUPID);
      // A view (or modify) share of someone else's resource is not enough to put it in a group.
      await shareToUser(s.dataSource, db.resourceId, creator.id, 'modify');
      failed(await client.post(`/resourcegroup/${ownGid}/associateResources`, { RESOURCEIDS: [db.resourceId] }), 'You need full access to resource rg-db to add it to a resource group');
      // A resource it cannot see, or of another organisation, answers like a missing one.
      const acme = await createResource(s.vaultUrl, other.token, { RESOURCENAME: 'acme-web' });
      failed(await client.post(`/resourcegroup/${ownGid}/associateResources`, { RESOURCEIDS: [acme.resourceId] }), `No such resource found: ${acme.resourceId}`);
      // Someone else's group cannot be changed; a Password User may not call it at all.
      const mine = await createResource(s.vaultUrl, creator.token, { RESOURCENAME: 'creator-own' });
      failed(await client.post(`/resourcegroup/${gid}/associateResources`, { RESOURCEIDS: [mine.resourceId] }), 'Only the creator of resource group PAM static or a super administrator can change it');
      failed(await pamClient(s, puser.token).post(`/resourcegroup/${gid}/associateResources`, { RESOURCEIDS: [web.resourceId] }), 'Your role (Password User) does not allow this operation');
      // Another organisation's group is not found.
      failed(await pamClient(s, other.token).post(`/resourcegroup/${gid}/associateResources`, { RESOURCEIDS: [acme.resourceId] }), 'No such resource group found');
      expect(await s.dataSource.query('SELECT resource_id FROM resource_group_members WHERE group_id = $1', [ownGid])).toEqual([]);
      // Its own resource it may add.
      ok(await client.post(`/resourcegroup/${ownGid}/associateResources`, { RESOURCEIDS: `${mine.resourceId}` }));
    });

    it('disassociates under the same decision (it lifts NoHelpDeskRetrieval), audited', async () => {
      const guarded = ok(await admin.post('/resourcegroup', { critgroup: 'no helpdesk', GROUPTYPE: 'static', NoHelpDeskRetrieval: 'true' }));
      const guardedId = Number(guarded.Details.RESOURCEGROUPID);
      ok(await admin.post(`/resourcegroup/${guardedId}/associateResources`, { RESOURCEIDS: [db.resourceId] }));
      // A help-desk user with a share of the resource cannot read it while it is in the group.
      await shareToUser(s.dataSource, db.resourceId, puser.id, 'view');
      expect(op(await pamClient(s, puser.token).get(`/resources/${db.resourceId}/accounts/${db.accountId}/password`)).result.status).toBe('Failed');
      // Only the group's creator or a super administrator with full access may take it out.
      const creator = await createUserWithToken(s, 'rg-creator-2', 'Password Administrator');
      await shareToUser(s.dataSource, db.resourceId, creator.id, 'modify');
      failed(await pamClient(s, creator.token).post(`/resourcegroup/${guardedId}/disassociateResources`, { RESOURCEIDS: [db.resourceId] }), /Only the creator of resource group no helpdesk/);
      const res = await admin.post(`/resourcegroup/${guardedId}/disassociateResources`, { RESOURCEIDS: [String(db.resourceId)] });
      expect(op(res)).toEqual({ name: 'DISASSOCIATE RESOURCES', result: { status: 'Success', message: '1 resource(s) removed from the resource group no helpdesk' } });
      expect(await s.dataSource.query('SELECT * FROM resource_group_members WHERE group_id = $1', [guardedId])).toEqual([]);
      ok(await pamClient(s, puser.token).get(`/resources/${db.resourceId}/accounts/${db.accountId}/password`));
      // The other spelling answers too; a second removal removes nothing.
      expect(ok(await admin.post(`/resourcegroup/${guardedId}/dissociateResources`, { RESOURCEIDS: [db.resourceId] })).result.message).toBe('0 resource(s) removed from the resource group no helpdesk');
      const audit = await auditRows(s, `operation = 'Resource Group Modified' AND target = 'no helpdesk'`);
      expect(audit.map((a) => a.description)).toEqual(['added rg-db', 'removed rg-db', 'removed rg-db']);
    });

    it('shares groups to users and user groups given as strings or numbers, one audit row per pair', async () => {
      const [ug] = await s.dataSource.query(`SELECT id FROM user_groups WHERE name = 'DB Admins'`);
      const res = await admin.put('/resourcegroup/share', { resourceGroupIds: [String(gid)], userIds: [String(puser.id)], userGroupIds: [ug.id], accessType: 'fullaccess' });
      expect(op(res)).toEqual({ name: 'SHARE RESOURCE GROUP', result: { status: 'Success', message: '1 resource group(s) shared successfully' } });
      const shares = await s.dataSource.query('SELECT user_id, user_group_id, access_type FROM shares WHERE resource_group_id = $1 ORDER BY user_id NULLS LAST', [gid]);
      expect(shares).toEqual([
        { user_id: puser.id, user_group_id: null, access_type: 'fullaccess' },
        { user_id: null, user_group_id: ug.id, access_type: 'fullaccess' },
      ]);
      const audit = await auditRows(s, `operation = 'Resource Group Shared' AND target = 'PAM static'`);
      expect(audit.map((a) => a.description)).toEqual(['fullaccess for user pam-user', 'fullaccess for user group DB Admins']);
      ok(await admin.put('/resourcegroup/share', { resourceGroupIds: [gid], userIds: [puser.id], accessType: 'revoke' }));
      expect(await s.dataSource.query('SELECT user_id FROM shares WHERE resource_group_id = $1 AND user_id IS NOT NULL', [gid])).toEqual([]);
    });

    it('refuses a group share unless a super administrator asks, and shares nothing when one pair is refused', async () => {
      const creator = await createUserWithToken(s, 'rg-sharer', 'Password Administrator');
      const own = ok(await pamClient(s, creator.token).post('/resourcegroup', { critgroup: 'sharer group', GROUPTYPE: 'static' }));
      // Even the group's creator: a share reaches members it may not see.
      failed(
        await pamClient(s, creator.token).put('/resourcegroup/share', { resourceGroupIds: [own.Details.RESOURCEGROUPID], userIds: [String(creator.id)], accessType: 'fullaccess' }),
        'Only a super administrator can share a resource group',
      );
      failed(await pamClient(s, puser.token).put('/resourcegroup/share', { resourceGroupIds: [String(gid)], userIds: [String(puser.id)], accessType: 'view' }), 'Your role (Password User) does not allow this operation');
      // The second grantee belongs to another organisation: neither pair is written.
      const before = await s.dataSource.query('SELECT count(*)::int AS n FROM shares');
      failed(await admin.put('/resourcegroup/share', { resourceGroupIds: [String(gid)], userIds: [String(pa.id), String(other.adminId)], accessType: 'view' }), 'No such user found');
      // Another organisation's group is not found, not shared.
      failed(await pamClient(s, other.token).put('/resourcegroup/share', { resourceGroupIds: [String(gid)], userIds: [String(other.adminId)], accessType: 'view' }), 'No such resource group found');
      failed(await admin.put('/resourcegroup/share', { resourceGroupIds: [String(gid)], accessType: 'view' }), 'Give userIds or userGroupIds');
      failed(await admin.put('/resourcegroup/share', { resourceGroupIds: ['x1'], userIds: ['1'], accessType: 'view' }), 'Invalid resourceGroupIds entry: x1');
      expect(await s.dataSource.query('SELECT count(*)::int AS n FROM shares')).toEqual(before);
    });
  });

  describe('lists', () => {
    beforeAll(async () => {
      for (const [name, type, account] of [['list-a', 'Linux', 'oracle'], ['list-b', 'Windows', 'Administrator'], ['list-c', 'Linux', 'deploy']]) {
        await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: name, RESOURCETYPE: type, ACCOUNTNAME: account, DNSNAME: `${name}.example` });
      }
    });
    const names = (o: Json): string[] => (o.Details ?? []).map((r: Json) => r['RESOURCE NAME']);

    it('pages GET /resources with STARTINDEX and LIMIT, totalRows counting every match', async () => {
      const all = ok(await admin.get('/resources', { SEARCHVALUE: 'list-' }));
      expect(all).toMatchObject({ totalRows: 3 });
      expect(names(all)).toEqual(['list-a', 'list-b', 'list-c']);
      const page = ok(await admin.get('/resources', { SEARCHVALUE: 'list-', STARTINDEX: '1', LIMIT: 1 }));
      expect(page.totalRows).toBe(3);
      expect(names(page)).toEqual(['list-b']);
      // Without a LIMIT the rest of the list is counted from the rows the page returns.
      const rest = ok(await admin.get('/resources', { SEARCHVALUE: 'list-', STARTINDEX: 1 }));
      expect(names(rest)).toEqual(['list-b', 'list-c']);
      expect(rest.totalRows).toBe(3);
      const past = ok(await admin.get('/resources', { SEARCHVALUE: 'list-', STARTINDEX: 5 }));
      expect(past).toEqual({ name: 'GET RESOURCES', result: expect.anything(), totalRows: 3 });
      failed(await admin.get('/resources', { LIMIT: 0 }), 'LIMIT must be at least 1');
    });

    it('searches PAM360 columns, accounts by login name, and honours VIEWTYPE', async () => {
      expect(names(ok(await admin.get('/resources', { SEARCHCOLUMN: 'IPADDRESS', SEARCHVALUE: 'list-b.example' })))).toEqual(['list-b']);
      expect(names(ok(await admin.get('/resources', { SEARCHTYPE: 'ACCOUNT', SEARCHVALUE: 'deplo' })))).toEqual(['list-c']);
      expect(names(ok(await admin.get('/resources', { SEARCHCOLUMN: 'ALL', SEARCHVALUE: 'oracl' })))).toEqual(['list-a']);
      expect(names(ok(await admin.get('/resources', { SEARCHVALUE: 'list-', VIEWTYPE: 'windowsrdppassword' })))).toEqual(['list-b']);
      expect(names(ok(await admin.get('/resources', { SEARCHVALUE: 'list-', VIEWTYPE: 'LINUXSSHPASSWORD' })))).toEqual(['list-a', 'list-c']);
      await s.dataSource.query(`UPDATE accounts SET is_favourite = true WHERE name = 'deploy'`);
      expect(names(ok(await admin.get('/resources', { SEARCHVALUE: 'list-', VIEWTYPE: 'FAVOURITEPASSWORD' })))).toEqual(['list-c']);
      failed(await admin.get('/resources', { VIEWTYPE: 'RECENTLYACCESSEDPASSWORD' }), /^VIEWTYPE RECENTLYACCESSEDPASSWORD is not supported/);
      failed(await admin.get('/resources', { SEARCHCOLUMN: 'PASSWORD', SEARCHVALUE: 'x' }), /^SEARCHCOLUMN must be one of: RESOURCENAME/);
    });

    it('never finds a resource through an account the caller does not see', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'list-hidden', ACCOUNTNAME: 'visible' });
      await s.dataSource.query(`INSERT INTO accounts (resource_id, name, name_key, password) SELECT $1, 'topsecret', 'topsecret', password FROM accounts WHERE id = $2`, [r.resourceId, r.accountId]);
      const viewer = await createUserWithToken(s, 'list-viewer', 'Password User');
      await shareToUser(s.dataSource, r.resourceId, viewer.id, 'view', r.accountId);
      const client = pamClient(s, viewer.token);
      expect(names(ok(await client.get('/resources', { SEARCHTYPE: 'ACCOUNT', SEARCHVALUE: 'visible' })))).toEqual(['list-hidden']);
      expect(ok(await client.get('/resources', { SEARCHTYPE: 'ACCOUNT', SEARCHVALUE: 'topsecret' }))).toMatchObject({ totalRows: 0 });
      const accounts = ok(await client.get(`/resources/${r.resourceId}/accounts`, { SEARCHVALUE: 'topsecret', SEARCHTYPE: 'ACCOUNT' }));
      expect(accounts).toMatchObject({ totalRows: 0, Details: { 'ACCOUNT LIST': [] } });
    });

    it('pages and searches the accounts of a resource, answering totalRows', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'list-many', ACCOUNTNAME: 'acc-0' });
      ok(await admin.post(`/resources/${r.resourceId}/accounts`, { ACCOUNTLIST: ['acc-1', 'acc-2', 'other'].map((n) => ({ ACCOUNTNAME: n, PASSWORD: 'Xy-123456789!' })) }));
      const plain = ok(await admin.get(`/resources/${r.resourceId}/accounts`));
      expect(plain.totalRows).toBe(4);
      expect(plain.Details['ACCOUNT LIST']).toHaveLength(4);
      const page = ok(await admin.get(`/resources/${r.resourceId}/accounts`, { SEARCHTYPE: 'ACCOUNT', SEARCHVALUE: 'acc-', STARTINDEX: 1, LIMIT: '1' }));
      expect(page.totalRows).toBe(3);
      expect(page.Details['ACCOUNT LIST'].map((a: Json) => a['ACCOUNT NAME'])).toEqual(['acc-1']);
      expect(page.Details['RESOURCE NAME']).toBe('list-many');
    });
  });

  describe('POST /passwords/validate', () => {
    it('answers Valid, or the policy reasons', async () => {
      const valid = await admin.post('/passwords/validate', { password: 'Tr0ub4dor-3-long!', passwordPolicy: 'Strong' }, 'details');
      expect(op(valid)).toEqual({ name: 'VALIDATE PASSWORD', result: { status: 'Success', message: 'Valid' }, Details: { PASSWORDPOLICY: 'Strong' } });
      const weak = op(await admin.post('/passwords/validate', { password: 'abc', passwordPolicy: 'strong' }, 'details'));
      expect(weak.result.status).toBe('Failed');
      expect(weak.result.message).toContain('Minimum length must be');
      expect(weak.Details).toEqual({ PASSWORDPOLICY: 'Strong', REASONS: weak.result.message.split('; ') });
      failed(await admin.post('/passwords/validate', { password: 'x', passwordPolicy: 'Paranoid' }, 'details'), 'passwordPolicy: no password policy named "Paranoid"');
      failed(await admin.post('/passwords/validate', { passwordPolicy: 'Strong' }, 'details'), 'password is required');
      // Any role may validate; nothing is audited.
      expect(ok(await pamClient(s, puser.token).post('/passwords/validate', { password: 'Tr0ub4dor-3-long!' }, 'details')).result.message).toBe('Valid');
      expect(await auditRows(s, `description LIKE '%Tr0ub4dor%'`)).toEqual([]);
    });
  });

  describe('create resource with only RESOURCENAME', () => {
    it('creates a resource without an account, of the default type, audited', async () => {
      const res = await admin.post('/resources', { RESOURCENAME: 'bare-resource' });
      expect(op(res)).toEqual({ name: 'CREATE RESOURCE', result: { status: 'Success', message: 'Resource bare-resource has been added successfully' }, Details: { RESOURCEID: expect.stringMatching(/^\d+$/) } });
      const [row] = await s.dataSource.query(`SELECT r.type, (SELECT count(*)::int FROM accounts a WHERE a.resource_id = r.id) AS n FROM resources r WHERE r.name = 'bare-resource'`);
      expect(row).toEqual({ type: 'Linux', n: 0 });
      const [audit] = await auditRows(s, `operation = 'Resource Added' AND resource_name = 'bare-resource'`);
      expect(audit).toMatchObject({ actor_name: 'admin', account_id: null, outcome: 'Success' });
      expect(ok(await admin.get('/resources', { SEARCHVALUE: 'bare-resource' })).Details[0]).toMatchObject({ 'RESOURCE TYPE': 'Linux', NOOFACCOUNTS: '0' });
    });

    it('generates the password of an account sent without one, from its policy', async () => {
      ok(await admin.post('/resources', { RESOURCENAME: 'generated-pw', ACCOUNTNAME: 'svc', ACCOUNTPASSWORDPOLICY: 'Strong', RESOURCEGROUPNAME: 'generated group' }));
      const ids = ok(await admin.get('/resources/resourcename/generated-pw/accounts/accountname/svc')).Details;
      const password = ok(await admin.get(`/resources/${ids.RESOURCEID}/accounts/${ids.ACCOUNTID}/password`)).Details.PASSWORD;
      expect(password.length).toBeGreaterThanOrEqual(8);
      // Sent url-encoded: a generated password may hold + & or %.
      const check = await request(s.vaultUrl).post(`${PREFIX}/passwords/validate`).set('AUTHTOKEN', s.adminToken).set('Content-Type', 'text/json')
        .send(`INPUT_DATA=${encodeURIComponent(JSON.stringify({ operation: { details: { password, passwordPolicy: 'Strong' } } }))}`);
      expect(ok(check).result.message).toBe('Valid');
    });

    it('refuses account fields without ACCOUNTNAME and writes nothing', async () => {
      failed(await admin.post('/resources', { RESOURCENAME: 'no-account-pw', PASSWORD: 'Xy-123456789!' }), 'PASSWORD needs ACCOUNTNAME');
      failed(await admin.post('/resources', { RESOURCENAME: 'no-account-cf', ACCOUNTCUSTOMFIELD: [{ CUSTOMLABEL: 'a', CUSTOMVALUE: 'b' }] }), 'ACCOUNTCUSTOMFIELD needs ACCOUNTNAME');
      failed(await admin.post('/resources', { RESOURCENAME: 'empty-pw', ACCOUNTNAME: 'a', PASSWORD: '' }), 'PASSWORD must not be empty');
      expect(await s.dataSource.query(`SELECT id FROM resources WHERE name LIKE 'no-account-%' OR name = 'empty-pw'`)).toEqual([]);
    });
  });

  describe('POST /organizations/manage', () => {
    it('grants a provider user access to another organisation, where it acts under its own role, audited in both', async () => {
      const res = await admin.post('/organizations/manage', { userIds: [String(pa.id)], orgIds: [other.orgId], managePermission: 'grant', approvalAdminId: '1' });
      expect(op(res)).toEqual({ name: 'MANAGE ORGANIZATION ACCESS', result: { status: 'Success', message: 'Organization access granted successfully' } });
      const audit = await auditRows(s, `operation = 'Organization Access Granted'`);
      expect(audit.map((a) => [a.org_id, a.target, a.actor_name])).toEqual([[other.orgId, 'Acme', 'admin'], [defaultOrgId, 'Acme', 'admin']]);
      expect(audit[0].description).toContain('users pam-pa');
      expect(ok(await pamClient(s, pa.token).get('/organizations')).Details.map((o: Json) => o.displayName)).toEqual(['Default', 'Acme']);
      // In Acme it is a Password Administrator, not a super administrator: it sees what it owns only.
      const inAcme = pamClient(s, pa.token, 'Acme');
      ok(await inAcme.post('/resources', { RESOURCENAME: 'pa-in-acme', ACCOUNTNAME: 'svc' }));
      expect((ok(await inAcme.get('/resources')).Details ?? []).map((r: Json) => r['RESOURCE NAME'])).toEqual(['pa-in-acme']);
      const [acmeDb] = await s.dataSource.query(`SELECT r.id AS rid, a.id AS aid FROM resources r JOIN accounts a ON a.resource_id = r.id WHERE r.name = 'acme-db'`);
      failed(await inAcme.get(`/resources/${acmeDb.rid}/accounts/${acmeDb.aid}/password`), /^No such/);
      failed(await inAcme.get('/user/getUserId?USERNAME=admin'), 'Your role (Password Administrator) does not allow this operation');
    });

    it('grants through a user group, and revokes', async () => {
      const [ug] = await s.dataSource.query(`SELECT id FROM user_groups WHERE name = 'DB Admins'`);
      await s.dataSource.query('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2)', [ug.id, puser.id]);
      failed(await pamClient(s, puser.token, 'Acme').get('/resources'), 'No organisation named Acme');
      ok(await admin.post('/organizations/manage', { userGroupIds: [ug.id], orgIds: [String(other.orgId)], managePermission: 'grant' }));
      ok(await pamClient(s, puser.token, 'Acme').get('/resources'));
      ok(await admin.post('/organizations/manage', { userIds: [pa.id], userGroupIds: [ug.id], orgIds: [other.orgId], managePermission: 'revoke' }));
      failed(await pamClient(s, puser.token, 'Acme').get('/resources'), 'No organisation named Acme');
      failed(await pamClient(s, pa.token, 'Acme').get('/resources'), 'No organisation named Acme');
      expect(await s.dataSource.query('SELECT * FROM organization_access')).toEqual([]);
      expect(await auditRows(s, `operation = 'Organization Access Revoked'`)).toHaveLength(2);
    });

    it('is decided by a provider super administrator only, for its own users and other organisations', async () => {
      failed(await pamClient(s, other.token).post('/organizations/manage', { userIds: [other.adminId], orgIds: [defaultOrgId], managePermission: 'grant' }), 'Only a super administrator of the provider organisation can manage organisation access');
      failed(await pamClient(s, pa.token).post('/organizations/manage', { userIds: [pa.id], orgIds: [other.orgId], managePermission: 'grant' }), 'Your role (Password Administrator) does not allow this operation');
      const padmin = await createUserWithToken(s, 'plain-admin', 'Administrator');
      failed(await pamClient(s, padmin.token).post('/organizations/manage', { userIds: [padmin.id], orgIds: [other.orgId], managePermission: 'grant' }), 'Only a super administrator of the provider organisation can manage organisation access');
      failed(await admin.post('/organizations/manage', { userIds: [other.adminId], orgIds: [other.orgId], managePermission: 'grant' }), `No such user found: ${other.adminId}`);
      failed(await admin.post('/organizations/manage', { userIds: [pa.id], orgIds: [defaultOrgId], managePermission: 'grant' }), `No such organisation found: ${defaultOrgId}`);
      failed(await admin.post('/organizations/manage', { userIds: [pa.id], orgIds: [other.orgId], managePermission: 'share' }), 'managePermission must be one of: grant, revoke');
      failed(await admin.post('/organizations/manage', { userIds: [pa.id], orgIds: [other.orgId], managePermission: 'grant', approvalAdminId: String(puser.id) }), `No administrator with approvalAdminId ${puser.id}`);
      expect(await s.dataSource.query('SELECT * FROM organization_access')).toEqual([]);
    });
  });
});
