import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { auditRows, vaultClient, VaultClient } from './vault-client';

describe('vault resources: create, edit, delete, look-ups', () => {
  let s: TestServices;
  let admin: VaultClient;
  beforeAll(async () => {
    s = await startTestServices();
    admin = vaultClient(s, s.adminToken);
  });
  afterAll(() => s.close());

  describe('create (op 6)', () => {
    it('creates under OWNERNAME, also given as DOMAIN\\user; the creator keeps full access', async () => {
      const owner = await createUserWithToken(s, 'pam', 'Password Administrator');
      const creator = await createUserWithToken(s, 'creator', 'Password Administrator');
      const res = await vaultClient(s, creator.token).post('/resources', {
        RESOURCENAME: 'owned-by-pam', ACCOUNTNAME: 'root', RESOURCETYPE: 'linux', PASSWORD: 'Owner-Pass-123!', OWNERNAME: 'CORP\\PAM',
      });
      expect(res.body.operation).toEqual({
        name: 'CREATE RESOURCE',
        result: { status: 'Success', message: 'Resource owned-by-pam has been added successfully' },
        Details: { RESOURCEID: expect.stringMatching(/^\d+$/), ACCOUNTID: expect.stringMatching(/^\d+$/) },
      });
      const [row] = await s.dataSource.query(`SELECT owner_id, type FROM resources WHERE name = 'owned-by-pam'`);
      expect(row).toEqual({ owner_id: owner.id, type: 'Linux' });
      const list = await vaultClient(s, owner.token).get('/resources');
      expect(list.body.operation.Details[0]).toMatchObject({ 'RESOURCE NAME': 'owned-by-pam', NOOFACCOUNTS: '1' });
      const accounts = await vaultClient(s, creator.token).get(`/resources/${list.body.operation.Details[0]['RESOURCE ID']}/accounts`);
      expect(accounts.body.operation.Details['RESOURCE OWNER']).toBe('pam');
      const [audit] = await auditRows(s, `operation = 'Resource Added' AND resource_name = 'owned-by-pam'`);
      expect(audit).toMatchObject({ actor_name: 'creator', description: 'owner pam' });
    });

    it('refuses an OWNERNAME that is unknown or not an administrator, writing nothing', async () => {
      await createUserWithToken(s, 'plain-user', 'Password User');
      const base = { ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Xy-123456789!' };
      const unknown = await admin.post('/resources', { ...base, RESOURCENAME: 'o1', OWNERNAME: 'nobody' });
      expect(unknown.body.operation.result).toEqual({ status: 'Failed', message: 'OWNERNAME: no user named nobody' });
      const user = await admin.post('/resources', { ...base, RESOURCENAME: 'o2', OWNERNAME: 'plain-user' });
      expect(user.body.operation.result).toEqual({
        status: 'Failed',
        message: 'OWNERNAME: plain-user is a Password User; the owner must be an Administrator, Password Administrator or Privileged Administrator',
      });
      expect(await s.dataSource.query(`SELECT id FROM resources WHERE name IN ('o1', 'o2')`)).toEqual([]);
    });

    it('joins RESOURCEGROUPNAME, creating the static group once', async () => {
      await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'g1', RESOURCEGROUPNAME: 'Databases' });
      await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'g2', RESOURCEGROUPNAME: 'databases' });
      const groups = await s.dataSource.query(`SELECT id, name, kind FROM resource_groups`);
      expect(groups).toEqual([{ id: expect.any(Number), name: 'Databases', kind: 'static' }]);
      const members = await s.dataSource.query(
        `SELECT r.name FROM resource_group_members m JOIN resources r ON r.id = m.resource_id WHERE m.group_id = $1 ORDER BY r.name`,
        [groups[0].id],
      );
      expect(members).toEqual([{ name: 'g1' }, { name: 'g2' }]);
      expect(await auditRows(s, `operation = 'Resource Group Added'`)).toHaveLength(1);
    });

    it('refuses joining a dynamic group', async () => {
      const [org] = await s.dataSource.query(`SELECT id FROM organizations WHERE name = 'Default'`);
      await s.dataSource.query(`INSERT INTO resource_groups (org_id, name, name_key, kind) VALUES ($1, 'Dyn', 'dyn', 'dynamic')`, [org.id]);
      const res = await admin.post('/resources', { RESOURCENAME: 'dyn-member', ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Xy-123456789!', RESOURCEGROUPNAME: 'Dyn' });
      expect(res.body.operation.result).toEqual({ status: 'Failed', message: 'RESOURCEGROUPNAME: Dyn is a dynamic resource group; its members follow its criteria' });
      expect(await s.dataSource.query(`SELECT id FROM resources WHERE name = 'dyn-member'`)).toEqual([]);
    });

    it('stores 20 + 20 custom fields and returns them; refuses 21 account fields, bad shapes and unknown policies', async () => {
      const fields = (n: number, p: string) => Array.from({ length: n }, (_, i) => ({ CUSTOMLABEL: `${p}${i}`, CUSTOMVALUE: `v${i}` }));
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCECUSTOMFIELD: fields(20, 'r'), ACCOUNTCUSTOMFIELD: fields(20, 'a') });
      const details = await admin.get(`/resources/${r.resourceId}/accounts/${r.accountId}`);
      expect(details.body.operation.Details['CUSTOM FIELD']).toHaveLength(20);
      expect(details.body.operation.Details['CUSTOM FIELD'][19]).toEqual({ CUSTOMFIELDLABEL: 'a19', CUSTOMFIELDVALUE: 'v19', CUSTOMFIELDTYPE: 'Character' });
      const base = { RESOURCENAME: 'bad', ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Xy-123456789!' };
      const cases: [Record<string, unknown>, string][] = [
        [{ ACCOUNTCUSTOMFIELD: fields(21, 'a') }, 'ACCOUNTCUSTOMFIELD has 21 entries: at most 20 custom fields are allowed at account level'],
        [{ RESOURCECUSTOMFIELD: 'Rack=B4' }, 'RESOURCECUSTOMFIELD must be a list of {CUSTOMLABEL, CUSTOMVALUE}'],
        [{ RESOURCECUSTOMFIELD: ['Rack', 'B4'] }, 'RESOURCECUSTOMFIELD[0] must be an object with CUSTOMLABEL and CUSTOMVALUE'],
        [{ RESOURCECUSTOMFIELD: [{ CUSTOMVALUE: 'x' }] }, 'RESOURCECUSTOMFIELD[0].CUSTOMLABEL is required'],
        [{ RESOURCEPASSWORDPOLICY: 'Paranoid' }, 'RESOURCEPASSWORDPOLICY: no password policy named "Paranoid"'],
        [{ RESOURCENAME: 'x'.repeat(256) }, 'RESOURCENAME must be at most 255 characters'],
        [{ PASSWORD: ['a', 'b'] }, 'PASSWORD must be text'],
      ];
      for (const [extra, message] of cases) {
        const res = await admin.post('/resources', { ...base, ...extra });
        expect(res.body.operation.result).toEqual({ status: 'Failed', message });
      }
      expect(await s.dataSource.query(`SELECT id FROM resources WHERE name = 'bad'`)).toEqual([]);
    });

    it('refuses a duplicate resource name, ignoring case', async () => {
      await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'dup-res' });
      const res = await admin.post('/resources', { RESOURCENAME: 'DUP-res', ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Xy-123456789!' });
      expect(res.body.operation.result).toEqual({ status: 'Failed', message: 'Resource DUP-res already exists' });
    });
  });

  describe('edit (op 17a)', () => {
    it('changes only the fields sent, merges custom fields, and audits', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'edit-me', LOCATION: 'Paris', RESOURCECUSTOMFIELD: [{ CUSTOMLABEL: 'Rack', CUSTOMVALUE: 'A1' }] });
      const res = await admin.put(`/resources/${r.resourceId}`, {
        RESOURCENAME: 'edited', RESOURCEDESCRIPTION: 'new desc', RESOURCEPASSWORDPOLICY: 'medium',
        RESOURCECUSTOMFIELD: [{ CUSTOMLABEL: 'rack', CUSTOMVALUE: 'B2' }, { CUSTOMLABEL: 'Row', CUSTOMVALUE: '7' }],
      });
      expect(res.body.operation).toEqual({ name: 'EDIT RESOURCE', result: { status: 'Success', message: 'Resource  modified successfully.' } });
      const d = (await admin.get(`/resources/${r.resourceId}/accounts`)).body.operation.Details;
      expect(d).toMatchObject({ 'RESOURCE NAME': 'edited', 'RESOURCE DESCRIPTION': 'new desc', LOCATION: 'Paris', 'RESOURCE PASSWORD POLICY': 'Medium' });
      expect(d['CUSTOM FIELD']).toEqual([
        { CUSTOMFIELDLABEL: 'Rack', CUSTOMFIELDVALUE: 'B2', CUSTOMFIELDTYPE: 'Character' },
        { CUSTOMFIELDLABEL: 'Row', CUSTOMFIELDVALUE: '7', CUSTOMFIELDTYPE: 'Character' },
      ]);
      const [audit] = await auditRows(s, `operation = 'Resource Modified' AND resource_id = $1`, [r.resourceId]);
      expect(audit).toMatchObject({ resource_name: 'edited', actor_name: 'admin' });
    });

    it.each([
      ['Linux', 'File Store', 'A Linux resource cannot be changed to File Store'],
      ['Linux', 'key store', 'A Linux resource cannot be changed to Key Store'],
      ['License Store', 'Linux', 'A License Store resource cannot be changed to another type'],
      ['AWS IAM', 'Windows', 'A AWS IAM resource cannot be changed to another type'],
    ])('refuses changing a %s resource to %s', async (from, to, message) => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCETYPE: from });
      const res = await admin.put(`/resources/${r.resourceId}`, { RESOURCETYPE: to });
      expect(res.body.operation.result).toEqual({ status: 'Failed', message });
    });

    it('allows changing between ordinary types, and refuses a rename onto another resource', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCETYPE: 'Linux' });
      expect((await admin.put(`/resources/${r.resourceId}`, { RESOURCETYPE: 'Windows' })).body.operation.result.status).toBe('Success');
      await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'taken' });
      const res = await admin.put(`/resources/${r.resourceId}`, { RESOURCENAME: 'TAKEN' });
      expect(res.body.operation.result).toEqual({ status: 'Failed', message: 'Resource TAKEN already exists' });
    });
  });

  describe('delete (ops 8, 9)', () => {
    it('deletes by id: secrets, history, custom fields and shares go; the audit trail stays', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'doomed', ACCOUNTCUSTOMFIELD: [{ CUSTOMLABEL: 'k', CUSTOMVALUE: 'v' }] });
      await admin.put(`/resources/${r.resourceId}/accounts/${r.accountId}/password`, { NEWPASSWORD: 'Next-Pass-1234!' });
      await admin.get(`/resources/${r.resourceId}/accounts/${r.accountId}/password`);
      const res = await admin.delete(`/resources/${r.resourceId}`);
      expect(res.body.operation).toEqual({
        name: 'DELETE RESOURCE',
        result: { status: 'Success', message: 'Resource doomed deleted successfully' },
        Details: { RESOURCEID: String(r.resourceId) },
      });
      for (const table of ['accounts', 'custom_fields', 'stored_files', 'shares']) {
        expect(await s.dataSource.query(`SELECT id FROM ${table} WHERE resource_id = $1`, [r.resourceId])).toEqual([]);
      }
      expect(await s.dataSource.query('SELECT id FROM password_history WHERE account_id = $1', [r.accountId])).toEqual([]);
      const trail = (await auditRows(s, 'resource_id = $1', [r.resourceId])).map((a) => a.operation);
      expect(trail).toEqual(['Resource Added', 'Password Changed', 'Password Retrieved', 'Resource Deleted']);
      expect((await admin.delete(`/resources/${r.resourceId}`)).body.operation.result).toEqual({ status: 'Failed', message: 'No such resource found' });
    });

    it('answers the id on GET by name and deletes on DELETE by name (names percent- or plus-encoded)', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'web server 1' });
      const get = await admin.get('/resources/resourcename/web%20server%201');
      expect(get.body.operation).toEqual({
        name: 'GET_RESOURCEID',
        result: { status: 'Success', message: 'Resource ID fetched successfully for the given resource name.' },
        Details: { RESOURCEID: String(r.resourceId) },
      });
      expect((await admin.get('/resources/resourcename/web+server+1')).body.operation.Details).toEqual({ RESOURCEID: String(r.resourceId) });
      const del = await admin.delete('/resources/resourcename/web+server+1');
      expect(del.body.operation).toEqual({
        name: 'GET_RESOURCEID',
        result: { status: 'Success', message: 'Resource web server 1 deleted successfully' },
        Details: { RESOURCEID: String(r.resourceId) },
      });
      expect((await admin.get('/resources/resourcename/web%20server%201')).body.operation.result).toEqual({ status: 'Failed', message: 'No resource named web server 1 found' });
    });
  });

  describe('look-ups', () => {
    it('answers GET_RESOURCEACCOUNTID from the query and from the path', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'db+prod', ACCOUNTNAME: 'sa' });
      const expected = {
        name: 'GET_RESOURCEACCOUNTID',
        result: { status: 'Success', message: 'Resource ID and account ID fetched successfully for the given resource name and account name.' },
        Details: { RESOURCEID: String(r.resourceId), ACCOUNTID: String(r.accountId) },
      };
      const query = await admin.get(`/resources/getResourceIdAccountId?RESOURCENAME=${encodeURIComponent('db+prod')}&ACCOUNTNAME=SA`);
      expect(query.body.operation).toEqual(expected);
      expect((await admin.get('/resources/resourcename/db%2Bprod/accounts/accountname/sa')).body.operation).toEqual(expected);
      const missing = await admin.get('/resources/getResourceIdAccountId?RESOURCENAME=db%2Bprod');
      expect(missing.body.operation.result).toEqual({ status: 'Failed', message: 'ACCOUNTNAME is required' });
    });

    it('serves the A2A getResourceAccountDetails with ACCOUNTDETAILS as a JSON string', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'a2a', PASSWORD: 'A2a-Secret-123!', DNSNAME: 'a2a.example' });
      const res = await request(s.vaultUrl)
        .get(`/restapi/json/v1/resources/getResourceAccountDetails?APP_AUTHTOKEN=${s.adminToken}&APP_NAME=ANSIBLE&RESOURCEID=${r.resourceId}&ACCOUNTID=${r.accountId}`)
        .set('Content-Type', 'application/json');
      const d = res.body.operation.Details;
      expect(res.body.operation.result.status).toBe('Success');
      expect(d.RESOURCEDETAILS).toMatchObject({ 'RESOURCE ID': String(r.resourceId), 'RESOURCE NAME': 'a2a', 'DNS NAME': 'a2a.example' });
      expect(typeof d.ACCOUNTDETAILS).toBe('string');
      expect(JSON.parse(d.ACCOUNTDETAILS)).toMatchObject({ 'ACCOUNT ID': String(r.accountId), 'ACCOUNT NAME': 'root', PASSWORD: 'A2a-Secret-123!' });
      const [audit] = await auditRows(s, `operation = 'Password Retrieved' AND account_id = $1`, [r.accountId]);
      expect(audit).toMatchObject({ actor_name: 'admin', outcome: 'Success' });
      const bad = await admin.get('/resources/getResourceAccountDetails?RESOURCEID=x1&ACCOUNTID=1');
      expect(bad.body.operation.result).toEqual({ status: 'Failed', message: 'Invalid RESOURCEID: x1' });
    });

    it('lists resource types (connectivity check) and searches by column', async () => {
      const types = await admin.get('/resources/resourcetypes');
      expect(types.body.operation.name).toBe('GET RESOURCE TYPES');
      expect(types.body.operation.Details).toEqual(expect.arrayContaining([{ 'RESOURCE TYPE': 'Windows' }, { 'RESOURCE TYPE': 'File Store' }, { 'RESOURCE TYPE': 'Key Store' }]));
      await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'searchable', RESOURCETYPE: 'Solaris' });
      const byType = await admin.get('/resources', { SEARCHCOLUMN: 'RESOURCETYPE', SEARCHVALUE: 'solar', SEARCHTYPE: 'RESOURCE' });
      expect(byType.body.operation.Details.map((x: Record<string, string>) => x['RESOURCE NAME'])).toEqual(['searchable']);
      const bad = await admin.get('/resources', { SEARCHCOLUMN: 'PASSWORD', SEARCHVALUE: 'x' });
      expect(bad.body.operation.result.message).toMatch(/^SEARCHCOLUMN must be one of: RESOURCENAME/);
    });

    it('takes a Python-quoted INPUT_DATA labelled text/json on an edit', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken);
      const res = await request(s.vaultUrl)
        .put(`/restapi/json/v1/resources/${r.resourceId}`)
        .set('AUTHTOKEN', s.adminToken)
        .set('Content-Type', 'text/json')
        .send(`INPUT_DATA=${encodeURIComponent("{'operation':{'Details':{'LOCATION':'Lyon','DEPARTMENT':'IT'}}}")}`);
      expect(res.body.operation.result.status).toBe('Success');
      expect((await admin.get(`/resources/${r.resourceId}/accounts`)).body.operation.Details).toMatchObject({ LOCATION: 'Lyon', DEPARTMENT: 'IT' });
      expect(inputData({})).toBe('{"operation":{"Details":{}}}');
    });
  });
});
