import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Keyring } from '@app/crypto';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';

const API = '/api/pki/restapi';

/** Collects a download as raw bytes whatever its content type. */
function binary(res: request.Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

describe('pki key vault (ops 13-17)', () => {
  let s: TestServices;
  const original = Buffer.concat([Buffer.from([0x00, 0xff, 0x0d, 0x0a, 0x1a]), randomBytes(4096), Buffer.from('\r\n-----END-----\n')]);
  const replacement = randomBytes(777);

  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  const upload = (op: string, details: Record<string, string>, file?: Buffer, token = s.adminToken) => {
    const req = request(s.pkiUrl).post(`${API}/${op}`).set('AUTHTOKEN', token).field('INPUT_DATA', inputData(details));
    return file ? req.attach('File', file, 'server.jks') : req;
  };
  const exportKey = (keyName: string, token = s.adminToken) =>
    request(s.pkiUrl).post(`${API}/exportKeyStoreKey`).set('AUTHTOKEN', token).type('form').send({ INPUT_DATA: inputData({ keyName }) }).buffer(true).parse(binary);

  it('adds a key file with capitalised Status and Message', async () => {
    const res = await upload(
      'addKeyStoreKey',
      { keyName: 'web-keystore', description: 'web tier', datacenter: 'dc-1', passphrase: ' keep spaces ', keyType: 'JKS', instanceName: 'web01' },
      original,
    );
    expect(res.body).toEqual({ name: 'AddKeyStoreKey', result: { Status: 'Success', Message: 'Key web-keystore added successfully' } });
  });

  it('refuses a duplicate name, a missing file and a missing keyName, capitalised too', async () => {
    expect((await upload('addKeyStoreKey', { keyName: 'WEB-KEYSTORE' }, original)).body.result).toEqual({
      Status: 'Failed',
      Message: 'Key WEB-KEYSTORE already exists in the key vault',
    });
    expect((await upload('addKeyStoreKey', { keyName: 'no-file' })).body.result).toEqual({
      Status: 'Failed',
      Message: 'File is required: upload the key file in the part named File',
    });
    expect((await upload('addKeyStoreKey', { description: 'x' }, original)).body.result).toEqual({ Status: 'Failed', Message: 'keyName is required' });
  });

  it('lists keys with the spec fields', async () => {
    const res = await request(s.pkiUrl).get(`${API}/getAllKeyStoreKeys`).set('AUTHTOKEN', s.adminToken);
    expect(res.body).toEqual({
      name: 'getAllKeyStoreKeys',
      result: { status: 'Success', message: 'Key store keys fetched successfully' },
      totalRows: 1,
      details: [
        {
          Description: 'web tier',
          'Key Name': 'web-keystore',
          'Created Time': expect.stringMatching(/^[A-Z][a-z]{2} \d{2}, \d{4} \d{2}:\d{2}$/),
          Datacenter: 'dc-1',
          'Instance Name': 'web01',
          'Key Type': 'JKS',
          'Created By': 'admin',
          'Key Store ID': expect.any(Number),
        },
      ],
    });
  });

  it('keeps contents and passphrase sealed at rest', async () => {
    const [row] = await s.dataSource.query(`SELECT content, passphrase FROM key_vault_keys WHERE name = 'web-keystore'`);
    expect(row.content.includes(original.subarray(5, 64))).toBe(false);
    expect(row.passphrase.toString('latin1')).not.toContain('keep spaces');
    const keyring = s.pki.get(Keyring);
    expect(await keyring.openText(row.passphrase, 'key_vault_keys.passphrase')).toBe(' keep spaces ');
    expect(Buffer.compare(await keyring.open(row.content, 'key_vault_keys.content'), original)).toBe(0);
  });

  it('exports the exact bytes as a file and audits the export', async () => {
    const res = await exportKey('web-keystore');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toBe('attachment; filename="server.jks"');
    expect(Buffer.compare(res.body, original)).toBe(0);
    const audit = await s.dataSource.query(`SELECT * FROM audit WHERE operation = 'Key Vault Key Exported'`);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ category: 'Pki', actor_name: 'admin', target: 'web-keystore' });
  });

  it('updates fields and content; fields not sent stay as they were', async () => {
    const res = await upload('updateKeyStoreKey', { keyName: 'web-keystore', description: 'rotated' }, replacement);
    expect(res.body).toEqual({ name: 'UpdateKeyStoreKey', result: { Status: 'Success', Message: 'Key web-keystore updated successfully' } });
    expect(Buffer.compare((await exportKey('web-keystore')).body, replacement)).toBe(0);
    const list = await request(s.pkiUrl).get(`${API}/getAllKeyStoreKeys`).set('AUTHTOKEN', s.adminToken);
    expect(list.body.details[0]).toMatchObject({ Description: 'rotated', Datacenter: 'dc-1', 'Instance Name': 'web01' });
    const missing = await upload('updateKeyStoreKey', { keyName: 'nope' }, replacement);
    expect(missing.body.result).toEqual({ Status: 'Failed', Message: 'Key nope does not exist in the key vault' });
  });

  it('lets a PkiRead role list but not export, add or delete', async () => {
    const auditor = await createUserWithToken(s, 'kv-auditor', 'Password Auditor');
    const list = await request(s.pkiUrl).get(`${API}/getAllKeyStoreKeys`).set('AUTHTOKEN', auditor.token);
    expect(list.body.totalRows).toBe(1);
    const denied = await request(s.pkiUrl)
      .post(`${API}/exportKeyStoreKey`)
      .set('AUTHTOKEN', auditor.token)
      .type('form')
      .send({ INPUT_DATA: inputData({ keyName: 'web-keystore' }) });
    expect(denied.body).toEqual({ name: 'ExportKeyStoreKey', result: { status: 'Failed', message: 'Your role (Password Auditor) does not allow this operation' } });
    expect((await upload('addKeyStoreKey', { keyName: 'x' }, original, auditor.token)).body.result.Status).toBe('Failed');
  });

  it('deletes a key; it is then gone', async () => {
    const res = await request(s.pkiUrl).delete(`${API}/deleteKeyStoreKey`).set('AUTHTOKEN', s.adminToken).query({ INPUT_DATA: inputData({ keyName: 'web-keystore' }) });
    expect(res.body).toEqual({ name: 'DeleteKeyStoreKey', result: { status: 'Success', message: 'Key web-keystore deleted successfully' } });
    const gone = await request(s.pkiUrl)
      .post(`${API}/exportKeyStoreKey`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ keyName: 'web-keystore' }) });
    expect(gone.body).toEqual({ name: 'ExportKeyStoreKey', result: { status: 'Failed', message: 'Key web-keystore does not exist in the key vault' } });
    const list = await request(s.pkiUrl).get(`${API}/getAllKeyStoreKeys`).set('AUTHTOKEN', s.adminToken);
    expect(list.body).toEqual({ name: 'getAllKeyStoreKeys', result: { status: 'Success', message: 'Key store keys fetched successfully' }, totalRows: 0, details: [] });
  });
});
