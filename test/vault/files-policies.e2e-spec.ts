import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { addPolicyCommand } from '../../scripts/admin/policies.commands';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { adminContext, auditRows, vaultClient, VaultClient } from './vault-client';

const MAX_FILE_SIZE = 64 * 1024;

describe('vault files (op 19) and password policies (op 16)', () => {
  let s: TestServices;
  let admin: VaultClient;
  beforeAll(async () => {
    s = await startTestServices({ MAX_FILE_SIZE: String(MAX_FILE_SIZE) });
    admin = vaultClient(s, s.adminToken);
  });
  afterAll(() => s.close());

  const upload = (details: Record<string, unknown>, parts: [string, Buffer, string, string?][]) => {
    let req = request(s.vaultUrl).post('/restapi/json/v1/resources').field('AUTHTOKEN', s.adminToken).field('INPUT_DATA', inputData(details));
    for (const [part, body, filename, contentType] of parts) req = req.attach(part, body, { filename, contentType: contentType ?? 'application/octet-stream' });
    return req;
  };
  const idsOf = async (name: string) => {
    const [row] = await s.dataSource.query(`SELECT r.id AS rid, a.id AS aid FROM resources r JOIN accounts a ON a.resource_id = r.id WHERE r.name = $1`, [name]);
    return row as { rid: number; aid: number };
  };
  const download = (rid: number, aid: number, details?: Record<string, unknown>) =>
    request(s.vaultUrl)
      .get(`/restapi/json/v1/resources/${rid}/accounts/${aid}/downloadfile`)
      .set('AUTHTOKEN', s.adminToken)
      .query(details ? { INPUT_DATA: inputData(details) } : {})
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });

  describe('files', () => {
    it('stores a File Store upload sealed and returns the exact bytes, name and type, audited', async () => {
      const bytes = Buffer.concat([randomBytes(40000), Buffer.from('Needle-File-Marker')]);
      const res = await upload({ RESOURCENAME: 'certs', ACCOUNTNAME: 'bundle', RESOURCETYPE: 'File Store', PASSWORD: 'File-Pass-123!' }, [['file', bytes, 'bundle.p12']]);
      expect(res.body.operation.result).toEqual({ status: 'Success', message: 'Resource certs has been added successfully' });
      const { rid, aid } = await idsOf('certs');
      const [stored] = await s.dataSource.query('SELECT file_name, content_type, size, content FROM stored_files WHERE account_id = $1', [aid]);
      expect(stored).toMatchObject({ file_name: 'bundle.p12', content_type: 'application/x-pkcs12', size: bytes.length });
      expect(Buffer.from(stored.content).includes(Buffer.from('Needle-File-Marker'))).toBe(false);

      const file = await download(rid, aid, { REASON: 'renewal', TICKETID: 'T-9' });
      expect(file.status).toBe(200);
      expect(Buffer.compare(file.body, bytes)).toBe(0);
      expect(file.headers['content-type']).toBe('application/x-pkcs12');
      expect(file.headers['content-disposition']).toBe('attachment; filename="bundle.p12"');
      const [audit] = await auditRows(s, `operation = 'File Downloaded' AND account_id = $1`, [aid]);
      expect(audit).toMatchObject({ actor_name: 'admin', reason: 'renewal', ticket_id: 'T-9', description: 'bundle.p12', resource_name: 'certs' });
    });

    it('serves custom-field files of the resource and of the account', async () => {
      const res = await upload(
        {
          RESOURCENAME: 'lic', ACCOUNTNAME: 'key', RESOURCETYPE: 'License Store', PASSWORD: 'Lic-Pass-1234!',
          RESOURCECUSTOMFIELD: [{ CUSTOMLABEL: 'Contract', CUSTOMVALUE: 'contractPart', CUSTOMTYPE: 'File' }],
          ACCOUNTCUSTOMFIELD: [{ CUSTOMLABEL: 'Key file', CUSTOMVALUE: 'keyPart', CUSTOMTYPE: 'File' }, { CUSTOMLABEL: 'Seats', CUSTOMVALUE: '10' }],
        },
        [['file', Buffer.from('LICENSE-KEY-123'), 'license.lic'], ['contractPart', Buffer.from('%PDF-1.4 fake'), 'contract.pdf', 'application/pdf'], ['keyPart', Buffer.from('-----BEGIN KEY-----'), 'vendor.pem']],
      );
      expect(res.body.operation.result.status).toBe('Success');
      const { rid, aid } = await idsOf('lic');
      expect((await download(rid, aid)).body.toString()).toBe('LICENSE-KEY-123');
      const contract = await download(rid, aid, { ISCUSTOMFIELD: 'TRUE', CUSTOMFIELDTYPE: 'RESOURCE', CUSTOMFIELDLABEL: 'contract' });
      expect([contract.body.toString(), contract.headers['content-type']]).toEqual(['%PDF-1.4 fake', 'application/pdf']);
      const key = await download(rid, aid, { ISCUSTOMFIELD: 'true', CUSTOMFIELDTYPE: 'account', CUSTOMFIELDLABEL: 'Key file' });
      expect([key.body.toString(), key.headers['content-disposition']]).toEqual(['-----BEGIN KEY-----', 'attachment; filename="vendor.pem"']);
      const details = (await admin.get(`/resources/${rid}/accounts/${aid}`)).body.operation.Details;
      expect(details['CUSTOM FIELD']).toEqual([
        { CUSTOMFIELDLABEL: 'Key file', CUSTOMFIELDVALUE: 'vendor.pem', CUSTOMFIELDTYPE: 'File' },
        { CUSTOMFIELDLABEL: 'Seats', CUSTOMFIELDVALUE: '10', CUSTOMFIELDTYPE: 'Character' },
      ]);
      const missing = await download(rid, aid, { ISCUSTOMFIELD: 'true', CUSTOMFIELDTYPE: 'ACCOUNT', CUSTOMFIELDLABEL: 'Seats' });
      expect(JSON.parse(missing.body.toString()).operation.result).toEqual({ status: 'Failed', message: 'No file is stored in custom field Seats' });
      const noType = await download(rid, aid, { ISCUSTOMFIELD: 'true', CUSTOMFIELDLABEL: 'Seats' });
      expect(JSON.parse(noType.body.toString()).operation.result.message).toBe('CUSTOMFIELDTYPE (ACCOUNT or RESOURCE) is required when ISCUSTOMFIELD is TRUE');
    });

    it('refuses a file over MAX_FILE_SIZE, a file for another type and a missing custom-field part, writing nothing', async () => {
      const base = { ACCOUNTNAME: 'a', RESOURCETYPE: 'File Store', PASSWORD: 'File-Pass-123!' };
      const big = await upload({ ...base, RESOURCENAME: 'big' }, [['file', Buffer.alloc(MAX_FILE_SIZE + 1), 'big.bin']]);
      expect(big.status).toBe(200);
      expect(big.body.operation.result).toEqual({ status: 'Failed', message: `The uploaded file is larger than the limit of ${MAX_FILE_SIZE} bytes` });
      const linux = await upload({ ...base, RESOURCENAME: 'linux-file', RESOURCETYPE: 'Linux' }, [['file', Buffer.from('x'), 'x.txt']]);
      expect(linux.body.operation.result).toEqual({ status: 'Failed', message: 'A file can only be stored in a File Store or License Store resource, not in Linux' });
      const part = await upload({ ...base, RESOURCENAME: 'no-part', RESOURCECUSTOMFIELD: [{ CUSTOMLABEL: 'Doc', CUSTOMVALUE: 'docPart', CUSTOMTYPE: 'File' }] }, []);
      expect(part.body.operation.result.message).toBe('Custom field Doc is a file field: send the file as the multipart part named "docPart" (its CUSTOMVALUE)');
      expect(await s.dataSource.query(`SELECT id FROM resources WHERE name IN ('big', 'linux-file', 'no-part')`)).toEqual([]);
    });

    it('answers Failed for an account without a file, hides files of unshared resources, and deleting the resource removes its files', async () => {
      await upload({ RESOURCENAME: 'gone', ACCOUNTNAME: 'a', RESOURCETYPE: 'File Store', PASSWORD: 'File-Pass-123!' }, [['file', Buffer.from('bye'), 'bye.txt', 'text/plain']]);
      const { rid, aid } = await idsOf('gone');
      const other = await createUserWithToken(s, 'outsider', 'Password Administrator');
      const hidden = await request(s.vaultUrl).get(`/restapi/json/v1/resources/${rid}/accounts/${aid}/downloadfile`).set('AUTHTOKEN', other.token);
      expect(hidden.body.operation.result).toEqual({ status: 'Failed', message: 'No such account found' });
      await admin.post(`/resources/${rid}/accounts`, { ACCOUNTLIST: [{ ACCOUNTNAME: 'empty', PASSWORD: 'p' }] });
      const [empty] = await s.dataSource.query(`SELECT id FROM accounts WHERE name = 'empty'`);
      const none = await download(rid, empty.id);
      expect(JSON.parse(none.body.toString()).operation).toEqual({ name: 'DOWNLOAD FILE', result: { status: 'Failed', message: 'No file is stored for account empty' } });
      await admin.delete(`/resources/${rid}`);
      expect(await s.dataSource.query('SELECT id FROM stored_files WHERE resource_id = $1', [rid])).toEqual([]);
      expect(await auditRows(s, `operation = 'Resource Deleted' AND resource_id = $1`, [rid])).toHaveLength(1);
    });
  });

  describe('policies', () => {
    it('generates passwords from the built-in and custom policies', async () => {
      const res = await admin.get('/passwords/generate', { POLICY: 'Strong' });
      expect(res.body.operation.name).toBe('GENERATE PASSWORD');
      expect(res.body.operation.result).toEqual({ status: 'Success', message: 'Password generated successfully' });
      expect(res.body.operation.Details.PASSWORD).toMatch(/^[A-Za-z](?=.*[a-z])(?=.*[A-Z])(?=.*\d).{7,31}$/);
      const q = await request(s.vaultUrl).get('/restapi/json/v1/passwords/generate').query({ AUTHTOKEN: s.adminToken, INPUT_DATA: "{'operation':{'Details':{'POLICY':'low'}}}" });
      expect(q.body.operation.Details.PASSWORD.length).toBeGreaterThanOrEqual(6);
      const bad = await admin.get('/passwords/generate', { POLICY: 'Nope' });
      expect(bad.body.operation.result).toEqual({ status: 'Failed', message: 'POLICY: no password policy named "Nope"' });
    });

    it('lets admins add a policy over the API, refusing impossible ones and duplicates; it then drives generation and compliance', async () => {
      const res = await admin.post('/passwordpolicies', {
        NAME: 'PinCode', MINLENGTH: '6', MAXLENGTH: '6', MINDIGITS: 6, SPECIALCHARS: '', FIRSTCHAR: 'any', NOREUSELAST: '1', MAXAGEDAYS: '30',
      });
      expect(res.body.operation).toMatchObject({ name: 'ADD PASSWORD POLICY', result: { status: 'Success', message: 'Password policy PinCode added successfully' } });
      const gen = await admin.get('/passwords/generate', { POLICY: 'pincode' });
      expect(gen.body.operation.Details.PASSWORD).toMatch(/^\d{6}$/);
      const impossible = await admin.post('/passwordpolicies', { NAME: 'Broken', MINLENGTH: '4', MAXLENGTH: '6', MINUPPER: '4', MINDIGITS: '4' });
      expect(impossible.body.operation.result).toEqual({
        status: 'Failed',
        message: 'Invalid password policy: The minimum character counts add up to 8, more than the maximum length 6',
      });
      const excluded = await admin.post('/passwordpolicies', { NAME: 'NoDigits', MINLENGTH: '4', MAXLENGTH: '8', MINDIGITS: '1', EXCLUDEDCHARS: '0123456789' });
      expect(excluded.body.operation.result.message).toBe('Invalid password policy: Digits are required but none are left after exclusions');
      expect((await admin.post('/passwordpolicies', { NAME: 'pincode', MINLENGTH: '6', MAXLENGTH: '6' })).body.operation.result.message).toBe('A password policy named pincode already exists');
      expect((await admin.post('/passwordpolicies', { NAME: 'strong', MINLENGTH: '6', MAXLENGTH: '6' })).body.operation.result.message).toBe('strong is a built-in password policy and cannot be redefined');
      expect((await admin.post('/passwordpolicies', { MINLENGTH: '6' })).body.operation.result.message).toBe('NAME is required');
      expect(await s.dataSource.query('SELECT name FROM password_policies ORDER BY name')).toEqual([{ name: 'PinCode' }]);

      const list = await admin.get('/passwordpolicies');
      expect(list.body.operation.Details.map((p: Record<string, string>) => [p.POLICYNAME, p.BUILTIN])).toEqual([
        ['Strong', 'true'], ['Medium', 'true'], ['Low', 'true'], ['PinCode', 'false'],
      ]);

      const created = await admin.post('/resources', { RESOURCENAME: 'atm', ACCOUNTNAME: 'pin', RESOURCETYPE: 'Generic Keys', PASSWORD: '12ab', ACCOUNTPASSWORDPOLICY: 'PinCode' });
      expect(created.body.operation.result.status).toBe('Success');
      const { rid, aid } = await idsOf('atm');
      const d = (await admin.get(`/resources/${rid}/accounts/${aid}`)).body.operation.Details;
      expect(d).toMatchObject({ 'PASSWORD POLICY': 'PinCode', 'COMPLIANT STATUS': 'Non-Compliant' });
      const change = await admin.put(`/resources/${rid}/accounts/${aid}/password`, { NEWPASSWORD: 'abcdef' });
      expect(change.body.operation.result.message).toBe('The new password does not comply with the PinCode policy: Must contain at least 6 digit(s)');
      expect((await admin.put(`/resources/${rid}/accounts/${aid}/password`, { NEWPASSWORD: '482913' })).body.operation.result.status).toBe('Success');
      expect(await auditRows(s, `operation = 'Password Policy Added'`)).toHaveLength(1);
    });

    it('refuses policy creation to roles without PolicyManage, and adds policies from the admin command', async () => {
      const pam = await createUserWithToken(s, 'pam', 'Password Administrator');
      const res = await vaultClient(s, pam.token).post('/passwordpolicies', { NAME: 'Mine', MINLENGTH: '8', MAXLENGTH: '10' });
      expect(res.body.operation.result).toEqual({ status: 'Failed', message: 'Your role (Password Administrator) does not allow this operation' });
      const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      try {
        await addPolicyCommand.run(adminContext(s), { name: 'Cli', 'min-length': '10', 'max-length': '20', 'min-upper': '2' });
        await expect(addPolicyCommand.run(adminContext(s), { name: 'Bad', 'min-length': '30', 'max-length': '20' })).rejects.toThrow(
          'Invalid password policy: Minimum length 30 is greater than maximum length 20',
        );
      } finally {
        log.mockRestore();
      }
      const gen = await admin.get('/passwords/generate', { POLICY: 'Cli' });
      expect(gen.body.operation.Details.PASSWORD).toMatch(/^(?=(.*[A-Z]){2}).{10,20}$/);
    });
  });
});
