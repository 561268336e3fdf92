import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { binary, client, Tools } from './cert-e2e-helpers';

/** createCSR, importCSR, signCSR (ENTCA, MSCA, signWithRoot), createCA, revocation and the public CRL, checked with openssl. */
describe('pki CSRs, signing with our CAs, revocation and CRLs (6565 layout)', () => {
  let s: TestServices;
  const tools = new Tools();
  const api = client(() => s.pkiUrl, () => s.adminToken);
  let rootPem: string;
  let issuingPem: string;

  beforeAll(async () => {
    s = await startTestServices({ PUBLIC_URL: 'https://pki.example.test:6565' });
    rootPem = (await request(s.pkiUrl).get('/ca/root-ca.crt')).text;
    issuingPem = (await request(s.pkiUrl).get('/ca/issuing-ca.crt')).text;
    tools.file('root.pem', rootPem);
    tools.file('issuing.pem', issuingPem);
  });
  afterAll(async () => {
    await s?.close();
    tools.remove();
  });

  const createCsr = async (cn: string, extra: Record<string, unknown> = {}) => {
    const res = await api.post('createCSR', { CNAME: cn, ORG: 'Example', COUNTRY: 'DE', PASSWORD: 'Csr-Pass-1', ...extra });
    expect(res.body.result).toEqual({ status: 'Success', message: `CSR for ${cn} created and saved successfully.` });
    return res.body.details as { CSR_ID: number; CSR: string };
  };
  const sign = async (details: Record<string, unknown>) => {
    const res = await api.post('signCSR', details);
    expect(res.body).toMatchObject({ name: 'SignCSR', result: { status: 'Success' } });
    return res.body.details[0] as { commonName: string; Certificate_ID: number; serialNumber: string; certificate: string; chain: string };
  };
  const pemOf = async (cn: string, serial: string) => (await api.download('getCertificate', { common_name: cn, serial_number: serial, fileType: 'CRT' })).body.toString();

  it('made the root and issuing CAs at first start, once, issuing CA signed by the root', async () => {
    const rows = await s.dataSource.query(`SELECT name, kind, internal FROM certificate_authorities ORDER BY id`);
    expect(rows).toEqual([
      { name: 'root-ca', kind: 'root', internal: false },
      { name: 'issuing-ca', kind: 'intermediate', internal: false },
      { name: 'service-ca', kind: 'root', internal: true },
    ]);
    expect(tools.openssl('verify', '-CAfile', 'root.pem', 'issuing.pem')).toContain('issuing.pem: OK');
    expect(tools.openssl('x509', '-in', 'issuing.pem', '-noout', '-text')).toContain('https://pki.example.test:6565/crl/root-ca.crl');
  });

  it('createCSR makes a request openssl verifies, with DNS and IP subjectAltNames', async () => {
    const csr = await createCsr('web.example.test', { ALT_NAMES: 'www.example.test,10.1.2.3', ALG: 'RSA', LEN: '2048', SIGALG: 'SHA384withRSA' });
    tools.file('web.csr', csr.CSR);
    const text = tools.openssl('req', '-in', 'web.csr', '-verify', '-noout', '-text');
    expect(text).toMatch(/verify OK/);
    expect(text).toContain('DNS:web.example.test, DNS:www.example.test, IP Address:10.1.2.3');
    expect(text).toContain('sha384WithRSAEncryption');
    const list = await api.get('getCSRList');
    expect(list.body).toMatchObject({ name: 'GetCSRList', result: { status: 'Success' }, totalRows: 1 });
    expect(list.body.GeneratedList[0]).toMatchObject({
      CSR_ID: csr.CSR_ID, DOMAIN_NAME: 'web.example.test', KEYALGORITHM: 'RSA', KEY_STRENGTH: 2048,
      SIGNATURE_ALGORITHM: 'SHA384withRSA', KEYSTORE_TYPE: 'PKCS12', isPassword: true, VALIDITY: '365 days', CREATED_BY: 'admin',
    });
  });

  it.each([
    [{ ALG: 'EC', LEN: '2048' }, 'EC key length 2048 is not supported'],
    [{ ALG: 'EC', LEN: '256', SIGALG: 'SHA256withRSA' }, 'needs an RSA key'],
    [{ ALG: 'DSA' }, 'Key algorithm "DSA" is not supported'],
    [{ VALIDITY_TYPE: 'weeks' }, 'VALIDITY_TYPE must be one of'],
    [{ ALT_NAMES: 'bad name!' }, 'neither a DNS name nor an IP address'],
  ])('refuses the bad combination %j with the reason', async (extra, reason) => {
    const res = await api.post('createCSR', { CNAME: 'bad.example.test', ...extra });
    expect(res.body.result.status).toBe('Failed');
    expect(res.body.result.message).toContain(reason);
  });

  describe('importCSR', () => {
    beforeAll(() => {
      tools.openssl('req', '-new', '-newkey', 'rsa:2048', '-keyout', 'imp.key', '-passout', 'pass:Key-Pass-1', '-subj', '/CN=imp.example.test/O=Imported', '-addext', 'subjectAltName=DNS:imp.example.test', '-out', 'imp.csr');
      tools.openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'other.key', '-subj', '/CN=other.example.test', '-out', 'other.csr');
    });
    const read = (name: string) => require('node:fs').readFileSync(`${tools.dir}/${name}`);

    it('imports an openssl CSR with its encrypted key and answers the CSR_ID', async () => {
      const res = await api.upload('importCSR', { password: 'Key-Pass-1', Email: 'ops@example.test' }, { CSR: { body: read('imp.csr'), name: 'imp.csr' }, Key: { body: read('imp.key'), name: 'imp.key' } });
      expect(res.body).toMatchObject({ name: 'importCSR', result: { status: 'Success', message: 'CSR imp.example.test imported successfully.' } });
      expect(res.body.details.CSR_ID).toEqual(expect.any(Number));
    });

    it('imports a CSR alone', async () => {
      const res = await api.upload('importCSR', {}, { CSR: { body: read('other.csr'), name: 'other.csr' } });
      expect(res.body.result.message).toBe('CSR other.example.test imported successfully.');
    });

    it.each([
      ['a key without password', {}, { Key: 'imp.key' }, 'password is required when a Key file is given'],
      ['a wrong key password', { password: 'nope' }, { Key: 'imp.key' }, 'The private key password is wrong.'],
      ['a key of another CSR', { password: 'x' }, { Key: 'other.key' }, 'The Key file does not belong to the CSR'],
    ])('refuses %s', async (_, details, parts, message) => {
      const files: Record<string, { body: Buffer; name: string }> = { CSR: { body: read('imp.csr'), name: 'imp.csr' } };
      for (const [part, name] of Object.entries(parts)) files[part] = { body: read(name), name };
      const res = await api.upload('importCSR', details, files);
      expect(res.body.result).toEqual({ status: 'Failed', message });
    });

    it('refuses a CSR whose signature does not verify', async () => {
      tools.openssl('req', '-in', 'imp.csr', '-outform', 'DER', '-out', 'tampered.der');
      const der = Buffer.from(read('tampered.der'));
      der[60] ^= 0x01;
      const res = await api.upload('importCSR', {}, { CSR: { body: der, name: 'tampered.der' } });
      expect(res.body.result.status).toBe('Failed');
      expect(res.body.result.message).toMatch(/signature does not verify|could not be parsed/);
    });
  });

  describe('signCSR', () => {
    let leaf: Awaited<ReturnType<typeof sign>>;

    it('ENTCA by default: the issuing CA, WebServer profile, CRL URL; openssl verifies the chain', async () => {
      const csr = await createCsr('site.example.test', { ALT_NAMES: '192.0.2.7' });
      leaf = await sign({ CSR_ID: csr.CSR_ID });
      expect(leaf).toMatchObject({ commonName: 'site.example.test', Certificate_ID: expect.any(Number), serialNumber: expect.stringMatching(/^[0-9A-F]{32}$/) });
      tools.file('site.pem', await pemOf('site.example.test', leaf.serialNumber));
      expect(tools.openssl('verify', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem', 'site.pem')).toContain('site.pem: OK');
      const text = tools.openssl('x509', '-in', 'site.pem', '-noout', '-text');
      expect(text).toContain('TLS Web Server Authentication');
      expect(text).toContain('URI:https://pki.example.test:6565/crl/issuing-ca.crl');
      expect(text).toContain('IP Address:192.0.2.7');
      expect(text).toContain('CA:FALSE');
      expect(text).toMatch(/Issuer: .*CN ?= ?Credential Vault Issuing CA/);
    });

    it.each([
      ['MSCA', 'Client Authentication', 'TLS Web Client Authentication'],
      ['ENTCA', 'CodeSigning', 'Code Signing'],
    ])('signType %s with template %s sets the extended key usage', async (signType, templateName, eku) => {
      const csr = await createCsr(`t-${signType}.example.test`);
      const signed = await sign({ CSR_ID: csr.CSR_ID, signType, caName: 'issuing-ca', templateName, serverName: 'any' });
      tools.file('t.pem', signed.certificate);
      expect(tools.openssl('x509', '-in', 't.pem', '-noout', '-text')).toContain(eku);
    });

    it.each([
      [{ caName: 'No Such CA' }, 'Certificate authority "No Such CA" is not known; known CAs: root-ca, issuing-ca'],
      [{ templateName: 'EmailProtection' }, 'Certificate template "EmailProtection" is not known; use one of WebServer, ClientAuthentication, CodeSigning.'],
      [{ signType: 'signWithRoot', rootCertificateCommonName: 'Nobody' }, 'No CA certificate "Nobody" was found'],
      [{ CSR_ID: 999999 }, 'No CSR with CSR_ID 999999 was found'],
    ])('refuses %j clearly', async (extra, message) => {
      const csr = await createCsr('refused.example.test');
      const res = await api.post('signCSR', { CSR_ID: csr.CSR_ID, ...extra });
      expect(res.body).toEqual({ name: 'SignCSR', result: { status: 'Failed', message } });
    });

    it('signWithRoot: an intermediate from the root, then a leaf from that intermediate; openssl verifies both chains', async () => {
      const rootSerial = tools.openssl('x509', '-in', 'root.pem', '-noout', '-serial').trim().split('=')[1];
      const subCsr = await createCsr('Team Sub CA');
      const sub = await sign({ signType: 'signWithRoot', rootCertificateCommonName: 'Credential Vault Root CA', rootCertificateSerialNumber: rootSerial.toLowerCase(), Validity: 30, isIntermediate: 'true', CSR_ID: subCsr.CSR_ID });
      tools.file('sub.pem', sub.certificate);
      const subText = tools.openssl('x509', '-in', 'sub.pem', '-noout', '-text');
      expect(subText).toContain('CA:TRUE');
      expect(subText).toContain('Certificate Sign');
      expect(tools.openssl('verify', '-CAfile', 'root.pem', 'sub.pem')).toContain('sub.pem: OK');
      const end = Date.parse(tools.openssl('x509', '-in', 'sub.pem', '-noout', '-enddate').trim().split('=')[1]);
      expect(Math.round((end - Date.now()) / 86_400_000)).toBe(30);

      const leafCsr = await createCsr('deep.example.test');
      const deep = await sign({ signType: 'signWithRoot', rootCertificateCommonName: 'Team Sub CA', rootCertificateSerialNumber: sub.serialNumber, Validity: '10', isIntermediate: 'false', CSR_ID: leafCsr.CSR_ID });
      tools.file('deep.pem', await pemOf('deep.example.test', deep.serialNumber));
      expect(tools.openssl('verify', '-CAfile', 'root.pem', '-untrusted', 'sub.pem', 'deep.pem')).toContain('deep.pem: OK');
    });

    it('createCA makes a documented extra CA (RSA intermediate below a new EC root) that signCSR can name', async () => {
      const root = await api.post('createCA', { caName: 'Lab Root', caType: 'root', CNAME: 'Lab Root CA', ALG: 'EC', LEN: '384' });
      expect(root.body).toMatchObject({ name: 'CreateCA', result: { status: 'Success', message: 'Certificate authority Lab Root created successfully.' } });
      const inter = await api.post('createCA', { caName: 'Lab Issuing', parentCaName: 'Lab Root', ALG: 'RSA', LEN: '3072' });
      // An organisation's CA is published by id: CA names are unique per organisation only.
      const [labIssuing] = await s.dataSource.query(`SELECT id FROM certificate_authorities WHERE name = 'Lab Issuing'`);
      expect(inter.body.details).toMatchObject({ caName: 'Lab Issuing', commonName: 'Lab Issuing', crlUrl: `https://pki.example.test:6565/crl/${labIssuing.id}.crl` });
      tools.file('lab-root.pem', root.body.details.certificate);
      tools.file('lab-issuing.pem', inter.body.details.certificate);
      const csr = await createCsr('lab.example.test');
      const signed = await sign({ CSR_ID: csr.CSR_ID, caName: 'Lab Issuing' });
      tools.file('lab-leaf.pem', signed.certificate);
      expect(tools.openssl('verify', '-CAfile', 'lab-root.pem', '-untrusted', 'lab-issuing.pem', 'lab-leaf.pem')).toContain('lab-leaf.pem: OK');
      const again = await api.post('createCA', { caName: 'Lab Root', caType: 'root' });
      expect(again.body.result).toEqual({ status: 'Failed', message: 'A certificate authority named Lab Root already exists' });
    });

    it('serial numbers are random, 126 bits, and unique per CA', async () => {
      const rows: { ca_id: number; serial_number: string }[] = await s.dataSource.query('SELECT ca_id, serial_number FROM certificates WHERE ca_id IS NOT NULL');
      expect(rows.length).toBeGreaterThan(4);
      for (const r of rows) expect(r.serial_number).toMatch(/^[4-7][0-9A-F]{31}$/);
      expect(new Set(rows.map((r) => `${r.ca_id}/${r.serial_number}`)).size).toBe(rows.length);
    });

    describe('revokeENTCACertificate and the public CRL', () => {
      const crl = async (ca: string) => {
        const res = await request(s.pkiUrl).get(`/crl/${ca}.crl`).buffer(true).parse(binary);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toContain('application/pkix-crl');
        tools.file(`${ca}.crl`, res.body);
        return tools.openssl('crl', '-inform', 'DER', '-in', `${ca}.crl`, '-noout', '-text');
      };

      it('publishes a signed, empty CRL before any revocation, without authentication', async () => {
        const text = await crl('issuing-ca');
        expect(text).toContain('No Revoked Certificates');
        expect(tools.openssl('crl', '-inform', 'DER', '-in', 'issuing-ca.crl', '-CAfile', 'issuing.pem', '-noout')).toMatch(/verify OK/);
      });

      it('revokes with a reason (plain text answer) and the CRL lists the serial with that reason', async () => {
        const res = await request(s.pkiUrl)
          .post('/api/pki/restapi/revokeENTCACertificate')
          .set('AUTHTOKEN', s.adminToken)
          .query({ INPUT_DATA: JSON.stringify({ operation: { Details: { common_name: 'site.example.test', serial_number: leaf.serialNumber, revoke_reason: '1' } } }) });
        expect(res.headers['content-type']).toContain('text/plain');
        expect(res.text).toBe(`Certificate site.example.test (serial number ${leaf.serialNumber}) has been revoked. Reason: Key compromise (1).`);
        const text = await crl('issuing-ca');
        expect(text).toContain(`Serial Number: ${leaf.serialNumber}`);
        expect(text).toMatch(/CRL Reason Code:\s*\n\s*Key Compromise/);
        tools.openssl('crl', '-inform', 'DER', '-in', 'issuing-ca.crl', '-out', 'issuing-crl.pem');
        const verdict = tools.opensslVerdict('verify', '-crl_check', '-CRLfile', 'issuing-crl.pem', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem', 'site.pem');
        expect(verdict).toContain('certificate revoked');
        const again = await api.post('revokeENTCACertificate', { common_name: 'site.example.test', serial_number: leaf.serialNumber, revoke_reason: 4 });
        expect(again.body.result).toEqual({ status: 'Failed', message: `Certificate site.example.test (serial number ${leaf.serialNumber}) is already revoked` });
        const audit = await s.dataSource.query(`SELECT reason FROM audit WHERE operation = 'Certificate Revoked'`);
        expect(audit).toEqual([{ reason: 'Key compromise (1)' }]);
      });

      it('a hold (6) is listed, and removing it from the CRL (7) takes it off', async () => {
        const csr = await createCsr('held.example.test');
        const held = await sign({ CSR_ID: csr.CSR_ID });
        const hold = await api.post('revokeENTCACertificate', { common_name: 'held.example.test', revoke_reason: 6 });
        expect(hold.text).toContain('Reason: Certificate hold (6)');
        expect(await crl('issuing-ca')).toMatch(new RegExp(`Serial Number: ${held.serialNumber}[\\s\\S]*Certificate Hold`));
        const release = await api.post('revokeENTCACertificate', { common_name: 'held.example.test', revoke_reason: 7 });
        expect(release.text).toContain('has been removed from the CRL');
        const text = await crl('issuing-ca');
        expect(text).not.toContain(held.serialNumber);
        expect(text).toContain(leaf.serialNumber);
      });

      it('refuses certificates no CA of ours issued, and bad reason codes', async () => {
        await api.post('createCertificate', { CNAME: 'self.example.test' });
        const self = await api.post('revokeENTCACertificate', { common_name: 'self.example.test', revoke_reason: 0 });
        expect(self.body.result.message).toMatch(/was not issued by a certificate authority of this server/);
        const bad = await api.post('revokeENTCACertificate', { common_name: 'site.example.test', revoke_reason: 9 });
        expect(bad.body.result).toEqual({ status: 'Failed', message: 'revoke_reason must be at most 7' });
      });

      it('answers an unknown CA on the CRL route without a token', async () => {
        const res = await request(s.pkiUrl).get('/crl/nope.crl');
        expect(res.body.result).toEqual({ status: 'Failed', message: 'No certificate authority nope' });
      });
    });
  });
});
