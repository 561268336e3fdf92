import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { hashToken } from '@app/crypto';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { call } from '../vault/workflow-helpers';

/**
 * The console's audit page filters by user, operation, resource and time through GET_AUDIT's
 * own reader (the filters are extensions of that operation too), and its CSV export follows the
 * same filters; a filtered page is counted (up to 10,000).
 */
describe('console audit filters', () => {
  let s: TestServices;
  let cookie: string;

  beforeAll(async () => {
    s = await startTestServices();
    for (const name of ['alpha-db', 'beta-db', 'alpha-web']) await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: name });
    const [admin] = await s.dataSource.query(`SELECT id FROM users WHERE username = 'admin'`);
    const token = randomBytes(32).toString('base64url');
    await s.dataSource.query(`INSERT INTO console_sessions (token_hash, user_id, csrf, stage) VALUES ($1, $2, 'x', 'full')`, [hashToken(token), admin.id]);
    cookie = `__Host-credvault=${token}`;
  });
  afterAll(() => s?.close());

  it('GET_AUDIT takes USERNAME, OPERATIONTYPE and RESOURCENAME, and counts what matches', async () => {
    const op = await call(s.vaultUrl, 'get', '/restapi/json/v1/audit', s.adminToken);
    expect(op.result.status).toBe('Success');
    const res = await request(s.vaultUrl).get('/restapi/json/v1/audit').set('AUTHTOKEN', s.adminToken)
      .query({ INPUT_DATA: JSON.stringify({ operation: { Details: { USERNAME: 'admin', OPERATIONTYPE: 'Resource Added', RESOURCENAME: 'ALPHA' } } }) });
    expect(res.body.operation.totalRows).toBe(2);
    expect(res.body.operation.Details.map((d: Record<string, string>) => d.RESOURCENAME).sort()).toEqual(['alpha-db', 'alpha-web']);
  });

  it('the console page and its CSV show only what the filters select', async () => {
    const page = await request(s.vaultUrl).get('/console/audit').set('Cookie', cookie).query({ type: 'Resource', resource: 'beta', operation: 'Resource Added' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('1 entries, newest first');
    expect(page.text).toContain('beta-db');
    expect(page.text).not.toContain('alpha-db');
    const csv = await request(s.vaultUrl).get('/console/audit.csv').set('Cookie', cookie).query({ resource: 'alpha' });
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toMatch(/^"AUDITID","RESOURCENAME"/);
    expect(lines.slice(1).every((l) => l.includes('alpha'))).toBe(true);
    expect(lines).toHaveLength(3);
  });

  it('the rotation page lists each schedule with its interval and next run', async () => {
    const group = await call(s.vaultUrl, 'post', '/restapi/json/v1/resourcegroup', s.adminToken, { critgroup: 'nightly', GROUPTYPE: 'static' });
    expect(group.result.status).toBe('Success');
    const put = await request(s.vaultUrl).put(`/restapi/json/v1/resourcegroup/${group.Details.RESOURCEGROUPID}/passwordrotation`).set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: JSON.stringify({ operation: { Details: { ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'days' } } }) });
    expect(put.body.operation.result.status).toBe('Success');
    const page = await request(s.vaultUrl).get('/console/rotation').set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<td>nightly<\/td><td>1 days<\/td><td>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/td>/);
  });
});
