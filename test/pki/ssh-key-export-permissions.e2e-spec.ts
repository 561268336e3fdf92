import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';

const API = '/api/pki/restapi';

// Reading keys is a read; taking away a private key or its passphrase needs pki.manage,
// which a Password Auditor (who holds pki.read) does not have.
describe('SSH key exports by role', () => {
  let s: TestServices;
  let auditor: string;
  beforeAll(async () => {
    s = await startTestServices();
    auditor = (await createUserWithToken(s, 'key-auditor', 'Password Auditor')).token;
    const made = await request(s.pkiUrl).post(`${API}/createsshkey`).set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: inputData({ keyName: 'audited', keyType: 'ed25519', passPhrase: 'Pass-Phrase-1' }) });
    expect(made.body.result.status).toBe('Success');
  });
  afterAll(() => s.close());

  const call = (base: string, method: 'post' | 'get', op: string, token: string, details: Record<string, string>) =>
    request(base)[method](`${API}/${op}`).set('AUTHTOKEN', token).query({ INPUT_DATA: inputData(details) }).buffer(true);

  it.each(['pki', 'vault'])('an auditor exports the public key but not the private key (%s service)', async (service) => {
    const base = service === 'pki' ? s.pkiUrl : s.vaultUrl;
    const pub = await call(base, 'post', 'exportSSHKey', auditor, { keyName: 'audited', keyExportType: 'public' });
    expect(pub.text).toMatch(/^ssh-ed25519 /);
    const priv = await call(base, 'post', 'exportSSHKey', auditor, { keyName: 'audited', keyExportType: 'private' });
    expect(priv.text).not.toContain('PRIVATE KEY');
    expect(priv.text).toContain('does not allow this operation');
  });

  it('an auditor cannot read the passphrase; an administrator can', async () => {
    const refused = await call(s.pkiUrl, 'get', 'getSSHKeyPassphrase', auditor, { keyName: 'audited' });
    expect(refused.body.result.status).toBe('Failed');
    expect(JSON.stringify(refused.body)).not.toContain('Pass-Phrase-1');
    const ok = await call(s.pkiUrl, 'get', 'getSSHKeyPassphrase', s.adminToken, { keyName: 'audited' });
    expect(JSON.stringify(ok.body)).toContain('Pass-Phrase-1');
  });
});
