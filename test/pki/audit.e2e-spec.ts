import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';

const API = '/api/pki/restapi';
const TIME = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{2}, \d{4} \d{2}:\d{2}$/;

describe('pki getAuditDetails (op 41)', () => {
  let s: TestServices;

  beforeAll(async () => {
    s = await startTestServices();
    for (const keyName of ['audit-key-1', 'audit-key-2']) {
      await request(s.pkiUrl)
        .post(`${API}/addKeyStoreKey`)
        .set('AUTHTOKEN', s.adminToken)
        .field('INPUT_DATA', inputData({ keyName }))
        .attach('File', Buffer.from('key bytes'), `${keyName}.pem`);
    }
    await request(s.pkiUrl).delete(`${API}/deleteKeyStoreKey`).set('AUTHTOKEN', s.adminToken).query({ INPUT_DATA: inputData({ keyName: 'audit-key-1' }) });
    // A vault event: same audit table, not part of the key manager's trail.
    await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'audit-res', ACCOUNTNAME: 'root', RESOURCETYPE: 'Linux', PASSWORD: 'Abc-12345678x' });
  });
  afterAll(() => s.close());

  const audits = (query: Record<string, string> = {}, token = s.adminToken) =>
    request(s.pkiUrl).get(`${API}/getAuditDetails`).set('AUTHTOKEN', token).query(query);

  it('lists the key manager audit trail, newest first, in the spec format', async () => {
    const res = await audits();
    expect(res.body.name).toBe('GetAllAudits');
    expect(res.body.result).toEqual({ status: 'Success', message: 'Audit details fetched successfully' });
    const operations = res.body.details.map((entry: { OPERATION: string }) => entry.OPERATION);
    expect(operations.slice(0, 3)).toEqual(['Key Vault Key Deleted', 'Key Vault Key Added', 'Key Vault Key Added']);
    expect(operations).not.toContain('Resource Added');
    expect(res.body.totalRows).toBe(res.body.details.length);
    expect(res.body.details[0]).toEqual({
      OPERATION: 'Key Vault Key Deleted',
      DESCRIPTION: 'Key audit-key-1 deleted from the key vault',
      AUDITID: expect.any(Number),
      USERNAME: 'admin',
      TIME: expect.stringMatching(TIME),
    });
    expect(res.body.details[0].AUDITID).toBeGreaterThan(res.body.details[1].AUDITID);
  });

  it('pages with STARTINDEX and LIMIT; totalRows is the total matching', async () => {
    const all = (await audits()).body;
    const page = (await audits({ INPUT_DATA: inputData({ STARTINDEX: '2', LIMIT: '1' }) })).body;
    expect(page.totalRows).toBe(all.totalRows);
    expect(page.details).toEqual([all.details[1]]);
  });

  it('needs the audit permission', async () => {
    const admin = await createUserWithToken(s, 'pki-pwadmin', 'Password Administrator');
    expect((await audits({}, admin.token)).body).toEqual({
      name: 'GetAllAudits',
      result: { status: 'Failed', message: 'Your role (Password Administrator) does not allow this operation' },
    });
    const auditor = await createUserWithToken(s, 'pki-auditor', 'Password Auditor');
    expect((await audits({}, auditor.token)).body.result.status).toBe('Success');
  });
});
