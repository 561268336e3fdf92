import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createOrgWithAdmin } from './users-orgs';
import { client, Tools } from '../pki/cert-e2e-helpers';

/** The vault's certificate subset on prefix B (docs/api/vault.md, prefix B): same domain, the vault's layout. */
describe('vault prefix B certificates (7272 layout)', () => {
  let s: TestServices;
  const tools = new Tools();
  const vault = client(() => s.vaultUrl, () => s.adminToken);
  const pki = client(() => s.pkiUrl, () => s.adminToken);

  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(async () => {
    await s?.close();
    tools.remove();
  });

  it('an empty list keeps the SSLCertificates key and totalRows 0', async () => {
    const res = await vault.get('getAllSSLCertificates');
    expect(res.body).toEqual({ name: 'GetAllSSLCertificates', result: { status: 'Success', message: 'SSL certificates fetched successfully' }, totalRows: 0, SSLCertificates: [] });
  });

  it('createCertificate and createCSR answer the vault layout', async () => {
    const cert = await vault.post('createCertificate', { CNAME: 'vault.example.test', PASSWORD: 'Vault-Pass-1', VALIDITY: '30' });
    expect(cert.body).toMatchObject({ name: 'CreateCertificate', result: { status: 'Success', message: 'Certificate vault.example.test created and saved successfully.' } });
    expect(cert.body.details).toBeUndefined();
    const csr = await vault.post('createCSR', { CNAME: 'csr.example.test', ALG: 'EC', LEN: '256' });
    expect(csr.body).toMatchObject({ name: 'CreateCertificate', result: { status: 'Success', message: 'CSR for csr.example.test created and saved successfully.' } });
    tools.file('v.csr', csr.body.CSR);
    expect(tools.openssl('req', '-in', 'v.csr', '-verify', '-noout')).toMatch(/verify OK/);
  });

  it('lists under SSLCertificates and SSLCertificates_Expiry_Date, including certificates made on the pki service', async () => {
    await pki.post('createCertificate', { CNAME: 'from-pki.example.test', VALIDITY: '10' });
    const list = await vault.get('getAllSSLCertificates');
    expect(list.body).toMatchObject({ name: 'GetAllSSLCertificates', result: { status: 'Success' }, totalRows: 2 });
    expect(list.body.SSLCertificates.map((e: Record<string, string>) => e['Common Name'])).toEqual(['from-pki.example.test', 'vault.example.test']);
    expect(list.body.SSLCertificates[0]).toMatchObject({
      CertID: expect.any(Number), Port: 443, KeyStrength: '2048', serialNumber: expect.stringMatching(/^[0-9a-f]+$/i),
      FromDate: expect.stringMatching(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/), ExpiryDate: expect.stringMatching(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/),
    });
    const expiry = await vault.get('getAllSSLCertsExpiryDate');
    expect(expiry.body).toMatchObject({ name: 'GetAllSSLCertificatesExpiryDate', totalRows: 2 });
    expect(expiry.body.SSLCertificates_Expiry_Date[1]).toEqual({
      'Common Name': 'vault.example.test', ExpiryDate: expect.stringMatching(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/), serialNumber: list.body.SSLCertificates[1].serialNumber,
    });
  });

  it('getCertificateDetails answers the endpoint object with an integer port', async () => {
    const res = await vault.get('getCertificateDetails', { common_name: 'vault.example.test' });
    expect(res.body).toEqual({
      name: 'GetCertificateDetails',
      result: { status: 'Success', message: 'Certificate details fetched successfully' },
      endpoint: {
        hostName: 'vault.example.test', port: 443, expiry_date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d$/),
        from_date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d$/), certSignAlg: 'SHA256withRSA', Sans: 'vault.example.test',
        serial: expect.stringMatching(/^[0-9A-F]{32}$/), fingerPrint: expect.any(String), keyalg: 'RSA', PublicKeyLength: 2048, PrivateKey: true,
      },
    });
  });

  it('getCertificate downloads the certificate; getCertificateKeyStore the PKCS#12 openssl opens', async () => {
    const cert = await vault.download('getCertificate', { common_name: 'vault.example.test' });
    tools.file('v.pem', cert.body);
    expect(tools.openssl('x509', '-in', 'v.pem', '-noout', '-subject')).toContain('vault.example.test');
    const store = await vault.download('getCertificateKeyStore', { common_name: 'vault.example.test' });
    expect(store.type).toContain('application/x-pkcs12');
    tools.file('v.p12', store.body);
    expect(tools.openssl('pkcs12', '-in', 'v.p12', '-passin', 'pass:Vault-Pass-1', '-nodes')).toContain('BEGIN PRIVATE KEY');
  });

  it('getCertificatePassphrase puts the passphrase as the last word of the message', async () => {
    const res = await vault.get('getCertificatePassphrase', { common_name: 'vault.example.test' });
    expect(res.body).toEqual({ name: 'GetCertificatePassphrase', result: { status: 'Success', message: 'Private key passphrase of certificate vault.example.test is Vault-Pass-1' } });
    expect(res.body.result.message.split(' ').pop()).toBe('Vault-Pass-1');
  });

  it('addCertificate answers Status and Message; deleteCertificate removes it', async () => {
    tools.openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'a.key', '-subj', '/CN=added.example.test', '-days', '5', '-out', 'a.pem');
    const add = await vault.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: readFileSync(join(tools.dir, 'a.pem')), name: 'a.pem' } });
    expect(add.body).toEqual({ name: 'AddCertificate', result: { Status: 'Success', Message: 'Certificate added.example.test added successfully.' } });
    const del = await vault.del('deleteCertificate', { common_name: 'added.example.test' });
    expect(del.body).toEqual({ name: 'DeleteCertificate', result: { status: 'Success', message: 'Certificate added.example.test deleted successfully.' } });
    const gone = await vault.get('getCertificateDetails', { common_name: 'added.example.test' });
    expect(gone.body).toEqual({ name: 'GetCertificateDetails', result: { status: 'Failed', message: 'No certificate with common name added.example.test was found' } });
  });

  it('signCSR (PAM360 on prefix B) signs a CSR of the organisation with the key manager\'s signing, as the same role', async () => {
    const csr = await vault.post('createCSR', { CNAME: 'pam-sign.example.test', ALG: 'RSA', LEN: '2048' });
    const csrId = csr.body.CSR_ID;
    expect(csrId).toEqual(expect.any(Number));
    // Another organisation's administrator finds no such CSR; a Password User may not sign.
    const acme = await createOrgWithAdmin(s, 'Acme CSR');
    const foreign = await client(() => s.vaultUrl, () => acme.token).post('signCSR', { CSR_ID: String(csrId) });
    expect(foreign.body).toEqual({ name: 'SignCSR', result: { status: 'Failed', message: `No CSR with CSR_ID ${csrId} was found` } });
    const user = await createUserWithToken(s, 'csr-user', 'Password User');
    const refused = await client(() => s.vaultUrl, () => user.token).post('signCSR', { CSR_ID: String(csrId) });
    expect(refused.body.result).toEqual({ status: 'Failed', message: 'Your role (Password User) does not allow this operation' });
    const res = await vault.post('signCSR', { signType: 'MSCA', Validity: 30, isIntermediate: 'false', CSR_ID: String(csrId) });
    expect(res.body).toMatchObject({ name: 'SignCSR', result: { status: 'Success', message: 'CSR of pam-sign.example.test signed successfully.' }, totalRows: 1 });
    expect(res.body.details[0]).toMatchObject({ commonName: 'pam-sign.example.test', serialNumber: expect.stringMatching(/^[0-9A-F]+$/) });
    const [audit] = await s.dataSource.query(`SELECT org_id, actor_name FROM audit WHERE category = 'Pki' AND target LIKE '%pam-sign.example.test%' ORDER BY id DESC LIMIT 1`);
    expect(audit).toMatchObject({ actor_name: 'admin' });
  });
});
