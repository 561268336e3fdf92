import request from 'supertest';
import { createResource } from '../support/factories';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';

const AUTH_FAILED = {
  operation: {
    name: 'Authentication',
    result: { status: 'Failed', message: 'API key received is not associated to any user. Authentication failed.' },
  },
};

describe('vault first slice: resources, accounts, passwords (prefix A)', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  describe('token carriers', () => {
    const path = '/restapi/json/v1/resources';
    it.each([
      ['header AUTHTOKEN', (r: request.Test, t: string) => r.set('AUTHTOKEN', t)],
      ['header in another case', (r: request.Test, t: string) => r.set('authToken', t)],
      ['header APP_AUTHTOKEN', (r: request.Test, t: string) => r.set('APP_AUTHTOKEN', t).set('APP_NAME', 'x')],
      ['query AUTHTOKEN', (r: request.Test, t: string) => r.query({ AUTHTOKEN: t })],
      ['query APP_AUTHTOKEN', (r: request.Test, t: string) => r.query({ APP_AUTHTOKEN: t, APP_TYPE: 'x' })],
    ])('accepts the token as %s', async (_, carry) => {
      const res = await carry(request(s.vaultUrl).get(path), s.adminToken);
      expect(res.status).toBe(200);
      expect(res.body.operation.result.status).toBe('Success');
    });

    it('accepts the token as an urlencoded form field, whatever the Content-Type says', async () => {
      const res = await request(s.vaultUrl)
        .post(path)
        .set('Content-Type', 'text/json')
        .send(`AUTHTOKEN=${s.adminToken}&INPUT_DATA=${encodeURIComponent(inputData({ RESOURCENAME: 'form-field', ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Abc-12345678x' }))}`);
      expect(res.status).toBe(200);
      expect(res.body.operation.result).toEqual({ status: 'Success', message: 'Resource form-field has been added successfully' });
      // The new ids, as the look-ups answer them (docs/api/vault.md).
      const [row] = await s.dataSource.query(`SELECT r.id::text AS "RESOURCEID", a.id::text AS "ACCOUNTID" FROM resources r JOIN accounts a ON a.resource_id = r.id WHERE r.name = 'form-field'`);
      expect(res.body.operation.Details).toEqual(row);
    });

    it('accepts the token as a multipart field', async () => {
      const res = await request(s.vaultUrl)
        .post(path)
        .field('AUTHTOKEN', s.adminToken)
        .field('INPUT_DATA', inputData({ RESOURCENAME: 'multipart', ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Abc-12345678x' }));
      expect(res.body.operation.result.status).toBe('Success');
    });

    it.each([
      ['no token', undefined],
      ['an unknown token', 'f'.repeat(64)],
    ])('answers the exact authentication failure for %s (HTTP 200)', async (_, token) => {
      const req = request(s.vaultUrl).get(path);
      const res = token ? await req.set('AUTHTOKEN', token) : await req;
      expect(res.status).toBe(200);
      expect(res.body).toEqual(AUTH_FAILED);
    });

    it('refuses a token used from a host its user is not bound to', async () => {
      const bound = await createUserWithToken(s, 'bound-user', 'Password Administrator', { allowedHosts: '10.1.2.3' });
      const res = await request(s.vaultUrl).get(path).set('AUTHTOKEN', bound.token);
      expect(res.body.operation).toEqual({
        name: 'Authentication',
        result: { status: 'Failed', message: 'User is not allowed to access from this host' },
      });
      const local = await createUserWithToken(s, 'loopback-user', 'Password Administrator', { allowedHosts: '127.0.0.0/8' });
      const ok = await request(s.vaultUrl).get(path).set('AUTHTOKEN', local.token);
      expect(ok.body.operation.result.status).toBe('Success');
    });

    it('audits failed authentication without the token', async () => {
      const token = 'e'.repeat(64);
      await request(s.vaultUrl).get(path).set('AUTHTOKEN', token);
      const rows = await s.dataSource.query(`SELECT * FROM audit WHERE operation = 'Authentication Failed'`);
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(token);
    });
  });

  describe('INPUT_DATA forms', () => {
    const create = (body: string, type = 'application/x-www-form-urlencoded') =>
      request(s.vaultUrl).post('/restapi/json/v1/resources').set('AUTHTOKEN', s.adminToken).set('Content-Type', type).send(body);

    it('takes Python-style single quotes', async () => {
      const res = await create(
        `INPUT_DATA=${encodeURIComponent("{'operation':{'Details':{'RESOURCENAME':'py-quotes','ACCOUNTNAME':'a','RESOURCETYPE':'Linux','PASSWORD':'p w-Xy12345!'}}}")}`,
      );
      expect(res.body.operation.result.message).toBe('Resource py-quotes has been added successfully');
    });

    it('takes unquoted keys and values', async () => {
      const res = await create(
        `INPUT_DATA=${encodeURIComponent('{operation:{Details:{RESOURCENAME:unquoted,ACCOUNTNAME:a,RESOURCETYPE:Linux,PASSWORD:Xy-123456789}}}')}`,
      );
      expect(res.body.operation.result.status).toBe('Success');
    });

    it('takes a raw JSON body', async () => {
      const res = await create(inputData({ RESOURCENAME: 'raw-json', ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Xy-123456789' }), 'application/json');
      expect(res.body.operation.result.status).toBe('Success');
    });

    it('takes INPUT_DATA in the query string of a GET, field names in any case', async () => {
      const res = await request(s.vaultUrl)
        .get('/restapi/json/v1/resources')
        .set('AUTHTOKEN', s.adminToken)
        .query({ INPUT_DATA: inputData({ searchcolumn: 'RESOURCENAME', searchvalue: 'py-quo' }) });
      expect(res.body.operation.Details.map((r: Record<string, string>) => r['RESOURCE NAME'])).toEqual(['py-quotes']);
    });

    it('answers a clear Failed naming INPUT_DATA when it cannot be parsed', async () => {
      const res = await create(`INPUT_DATA=${encodeURIComponent('{operation:{Details:{')}`);
      expect(res.status).toBe(200);
      expect(res.body.operation.name).toBe('CREATE RESOURCE');
      expect(res.body.operation.result.status).toBe('Failed');
      expect(res.body.operation.result.message).toMatch(/INPUT_DATA/);
    });

    // PAM360 requires only RESOURCENAME; the other three have defaults (test/vault/pam360-operations).
    it.each(['RESOURCENAME'])(
      'refuses a missing %s by name and writes nothing',
      async (field) => {
        const details: Record<string, string> = { RESOURCENAME: `missing-${field}`, ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Xy-123456789' };
        delete details[field];
        const before = await s.dataSource.query('SELECT (SELECT count(*) FROM resources) r, (SELECT count(*) FROM accounts) a');
        const res = await create(`INPUT_DATA=${encodeURIComponent(inputData(details))}`);
        expect(res.body.operation.result).toEqual({ status: 'Failed', message: `${field} is required` });
        const after = await s.dataSource.query('SELECT (SELECT count(*) FROM resources) r, (SELECT count(*) FROM accounts) a');
        expect(after).toEqual(before);
      },
    );

    it('refuses more than 20 resource custom fields and writes nothing', async () => {
      const fields = Array.from({ length: 21 }, (_, i) => ({ CUSTOMLABEL: `l${i}`, CUSTOMVALUE: 'v' }));
      const res = await create(
        `INPUT_DATA=${encodeURIComponent(inputData({ RESOURCENAME: 'too-many', ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Xy-123456789', RESOURCECUSTOMFIELD: fields }))}`,
      );
      expect(res.body.operation.result.message).toMatch(/at most 20 custom fields are allowed at resource level/);
      expect(await s.dataSource.query(`SELECT id FROM resources WHERE name = 'too-many'`)).toEqual([]);
    });
  });

  describe('resources, accounts and passwords', () => {
    it('lists, details and reads back a password, with custom fields', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, {
        RESOURCEDESCRIPTION: 'primary db',
        RESOURCECUSTOMFIELD: [{ CUSTOMLABEL: 'Rack', CUSTOMVALUE: 'B4' }],
      });
      const accounts = await request(s.vaultUrl).get(`/restapi/json/v1/resources/${r.resourceId}/accounts`).set('AUTHTOKEN', s.adminToken);
      expect(accounts.body.operation.name).toBe('GET RESOURCE ACCOUNTLIST');
      const d = accounts.body.operation.Details;
      expect(d).toMatchObject({ 'RESOURCE ID': String(r.resourceId), 'RESOURCE NAME': r.name, 'RESOURCE DESCRIPTION': 'primary db', 'RESOURCE OWNER': 'admin' });
      expect(d['CUSTOM FIELD']).toEqual([{ CUSTOMFIELDLABEL: 'Rack', CUSTOMFIELDVALUE: 'B4', CUSTOMFIELDTYPE: 'Character' }]);
      expect(d['ACCOUNT LIST'][0]).toMatchObject({ 'ACCOUNT ID': String(r.accountId), PASSWDID: String(r.accountId), 'PASSWORD STATUS': '****' });

      const details = await request(s.vaultUrl).get(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}`).set('AUTHTOKEN', s.adminToken);
      expect(details.body.operation.name).toBe('GET RESOURCE ACCOUNT DETAILS');
      expect(details.body.operation.Details).toMatchObject({ PASSWDID: String(r.accountId), 'PASSWORD POLICY': 'Strong', 'EXPIRY STATUS': 'Valid' });

      const pw = await request(s.vaultUrl).get(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`).set('AUTHTOKEN', s.adminToken);
      expect(pw.body).toEqual({
        operation: { name: 'GET PASSWORD', result: { status: 'Success', message: 'Password fetched successfully' }, Details: { PASSWORD: r.password } },
      });
      expect(pw.headers['etag']).toBeUndefined();
      expect(pw.headers['cache-control']).toBe('no-store');
    });

    it('changes a password locally, keeps the old one in history and refuses a non-compliant one', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken);
      const url = `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`;
      const weak = await request(s.vaultUrl).put(url).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData({ NEWPASSWORD: 'short', RESETTYPE: 'LOCAL' }) });
      expect(weak.body.operation.result.status).toBe('Failed');
      expect(weak.body.operation.result.message).toMatch(/Minimum length/);

      const ok = await request(s.vaultUrl).put(url).set('AUTHTOKEN', s.adminToken).type('form')
        .send({ INPUT_DATA: inputData({ NEWPASSWORD: 'N3w-Password-2026', RESETTYPE: 'LOCAL', REASON: 'rotation' }) });
      expect(ok.body.operation).toEqual({ name: 'CHANGE PASSWORD', result: { status: 'Success', message: 'Password changed successfully' } });
      const read = await request(s.vaultUrl).get(url).set('AUTHTOKEN', s.adminToken);
      expect(read.body.operation.Details.PASSWORD).toBe('N3w-Password-2026');
      const [{ n }] = await s.dataSource.query('SELECT count(*)::int n FROM password_history WHERE account_id = $1', [r.accountId]);
      expect(n).toBe(1);
      const [audit] = await s.dataSource.query(`SELECT * FROM audit WHERE account_id = $1 AND operation = 'Password Changed'`, [r.accountId]);
      expect(audit).toMatchObject({ actor_name: 'admin', reason: 'rotation', outcome: 'Success' });
    });

    it('answers No such account found for an unknown account, and refuses non-numeric ids', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken);
      const unknown = await request(s.vaultUrl).put(`/restapi/json/v1/resources/${r.resourceId}/accounts/999999/password`).set('AUTHTOKEN', s.adminToken)
        .type('form').send({ INPUT_DATA: inputData({ NEWPASSWORD: 'N3w-Password-2026' }) });
      expect(unknown.body.operation.result).toEqual({ status: 'Failed', message: 'No such account found' });
      const bad = await request(s.vaultUrl).get(`/restapi/json/v1/resources/abc/accounts`).set('AUTHTOKEN', s.adminToken);
      expect(bad.body.operation.result).toEqual({ status: 'Failed', message: 'Invalid resource id: abc' });
    });

    it("hides another user's resource on every path", async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'admins-only' });
      const other = await createUserWithToken(s, 'other-admin', 'Password Administrator');
      const list = await request(s.vaultUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', other.token);
      expect(list.body.operation).toMatchObject({ totalRows: 0 });
      expect(list.body.operation.Details).toBeUndefined();
      for (const path of [`${r.resourceId}/accounts`, `${r.resourceId}/accounts/${r.accountId}`, `${r.resourceId}/accounts/${r.accountId}/password`]) {
        const res = await request(s.vaultUrl).get(`/restapi/json/v1/resources/${path}`).set('AUTHTOKEN', other.token);
        expect(res.body.operation.result.status).toBe('Failed');
        expect(JSON.stringify(res.body)).not.toContain(r.password);
      }
    });

    it('audits every password read, and keeps no plaintext password anywhere in the database', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Needle-In-The-Haystack-42' });
      await request(s.vaultUrl).get(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`).set('AUTHTOKEN', s.adminToken)
        .query({ INPUT_DATA: inputData({ REASON: 'deploy', TICKETID: 'T-1' }) });
      const [row] = await s.dataSource.query(`SELECT * FROM audit WHERE account_id = $1 AND operation = 'Password Retrieved'`, [r.accountId]);
      expect(row).toMatchObject({ actor_name: 'admin', reason: 'deploy', ticket_id: 'T-1', resource_name: r.name, ip: '127.0.0.1' });

      const tables: { table_name: string }[] = await s.dataSource.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      );
      for (const { table_name } of tables) {
        const rows: { t: string }[] = await s.dataSource.query(`SELECT t::text AS t FROM "${table_name}" t`);
        for (const { t } of rows) {
          expect(t).not.toContain('Needle-In-The-Haystack-42');
          expect(t).not.toContain(Buffer.from('Needle-In-The-Haystack-42').toString('hex'));
        }
      }
    });
  });

  it('answers /health publicly on both services, and tolerates doubled and trailing slashes', async () => {
    expect((await request(s.vaultUrl).get('/health')).body).toEqual({ status: 'ok' });
    expect((await request(s.pkiUrl).get('/health/')).body).toEqual({ status: 'ok' });
    const res = await request(s.vaultUrl).get('/restapi/json/v1//resources/').set('AUTHTOKEN', s.adminToken);
    expect(res.body.operation.result.status).toBe('Success');
  });
});
