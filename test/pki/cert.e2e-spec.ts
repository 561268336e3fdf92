import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { CertificateAuthoritiesService } from '../../libs/pki/src/cert-service';
import { client, Tools } from './cert-e2e-helpers';

/** The date form of the certificate lists, e.g. `Aug 27, 2022` (the details keep yyyy-mm-dd hh:mm:ss.f). */
const LIST_DATE = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4}$/;

/** createCertificate, addCertificate, getCertificate in every fileType, details, lists, delete; checked with openssl and keytool. */
describe('pki certificate inventory and export formats (6565 layout)', () => {
  let s: TestServices;
  let auditorToken: string;
  const tools = new Tools();
  const api = client(() => s.pkiUrl, () => s.adminToken);
  const auditor = client(() => s.pkiUrl, () => auditorToken);
  const read = (name: string) => readFileSync(join(tools.dir, name));
  let web: { serialNumber: string; Certificate_ID: number };

  beforeAll(async () => {
    s = await startTestServices();
    auditorToken = (await createUserWithToken(s, 'cert-auditor', 'Password Auditor')).token;
    const res = await api.post('createCertificate', {
      CNAME: 'web.example.test', ALT_NAMES: 'www.example.test,192.0.2.10', ORG: 'Example', ORGUNIT: 'Ops', LOCATION: 'Berlin', STATE: 'BE', COUNTRY: 'de',
      PASSWORD: 'Store-Pass-1', ALG: 'RSA', LEN: 2048, SIGALG: 'SHA256withRSA', VALIDITY: '2', VALIDITY_TYPE: 'hours', StoreType: 'JKS',
    });
    expect(res.body).toMatchObject({ name: 'CreateCertificate', result: { status: 'Success', message: 'Certificate web.example.test created and saved successfully.' } });
    web = res.body.details;
  });
  afterAll(async () => {
    await s?.close();
    tools.remove();
  });

  const download = (details: Record<string, unknown>) => api.download('getCertificate', { common_name: 'web.example.test', ...details });

  describe('getCertificate in every fileType', () => {
    it('PEM (the default) is the certificate openssl reads, with the subject and SANs asked for', async () => {
      const file = await download({});
      expect(file.type).toContain('application/x-pem-file');
      expect(file.disposition).toContain('filename="web.example.test.pem"');
      tools.file('web.pem', file.body);
      const text = tools.openssl('x509', '-in', 'web.pem', '-noout', '-text');
      expect(text).toMatch(/Subject: C ?= ?DE, ST ?= ?BE, L ?= ?Berlin, O ?= ?Example, OU ?= ?Ops, CN ?= ?web.example.test/);
      expect(text).toContain('DNS:web.example.test, DNS:www.example.test, IP Address:192.0.2.10');
      expect(text).toContain('Public-Key: (2048 bit)');
      expect(tools.openssl('x509', '-in', 'web.pem', '-noout', '-serial').trim()).toBe(`serial=${web.serialNumber}`);
      const span = Date.parse(tools.openssl('x509', '-in', 'web.pem', '-noout', '-enddate').trim().split('=')[1]) - Date.parse(tools.openssl('x509', '-in', 'web.pem', '-noout', '-startdate').trim().split('=')[1]);
      expect(span).toBe(2 * 3_600_000);
    });

    it.each([['CER', '.cer'], ['DER', '.der']])('%s is binary DER', async (fileType, suffix) => {
      const file = await download({ fileType });
      expect(file.disposition).toContain(`web.example.test${suffix}`);
      tools.file(`web${suffix}`, file.body);
      expect(tools.openssl('x509', '-inform', 'DER', '-in', `web${suffix}`, '-noout', '-subject')).toContain('web.example.test');
    });

    it('CRT is the certificate alone in PEM', async () => {
      const file = await download({ fileType: 'crt' });
      expect(file.body.toString().match(/BEGIN CERTIFICATE/g)).toHaveLength(1);
    });

    it('P7B is a PKCS#7 bundle openssl pkcs7 prints', async () => {
      tools.file('web.p7b', (await download({ fileType: 'P7B' })).body);
      expect(tools.openssl('pkcs7', '-inform', 'DER', '-in', 'web.p7b', '-print_certs', '-noout')).toContain('web.example.test');
    });

    it('PKCS is a PKCS#12 openssl opens with the stored password, key matching the certificate', async () => {
      tools.file('web.p12', (await download({ fileType: 'PKCS' })).body);
      const out = tools.openssl('pkcs12', '-in', 'web.p12', '-passin', 'pass:Store-Pass-1', '-nodes');
      expect(out).toContain('BEGIN PRIVATE KEY');
      tools.file('p12.pem', out);
      expect(tools.openssl('pkey', '-in', 'p12.pem', '-pubout')).toBe(tools.openssl('x509', '-in', 'web.pem', '-noout', '-pubkey'));
    });

    it('JKS is a Java keystore keytool lists with one PrivateKeyEntry', async () => {
      tools.file('web.jks', (await download({ fileType: 'JKS' })).body);
      const out = tools.keytool('-list', '-v', '-keystore', 'web.jks', '-storepass', 'Store-Pass-1');
      expect(out).toContain('Entry type: PrivateKeyEntry');
      expect(out).toContain('Alias name: web.example.test');
    });

    it('KEY is the PKCS#8 key, encrypted with the stored password', async () => {
      const file = await download({ fileType: 'KEY' });
      expect(file.body.toString()).toContain('BEGIN ENCRYPTED PRIVATE KEY');
      tools.file('web.key', file.body);
      expect(tools.openssl('pkey', '-in', 'web.key', '-passin', 'pass:Store-Pass-1', '-pubout')).toBe(tools.openssl('x509', '-in', 'web.pem', '-noout', '-pubkey'));
    });

    it('refuses an unknown fileType with the list of known ones', async () => {
      const res = await api.get('getCertificate', { common_name: 'web.example.test', fileType: 'ZIP' });
      expect(res.body).toEqual({ name: 'GetCertificate', result: { status: 'Failed', message: 'fileType "ZIP" is not supported; use one of PEM, CRT, CER, DER, P7B, PKCS, JKS, KEY.' } });
    });

    it('audits every key export, never with the password', async () => {
      const rows: { operation: string; description: string }[] = await s.dataSource.query(`SELECT operation, description FROM audit WHERE operation = 'Certificate Exported' ORDER BY id`);
      expect(rows.map((r) => r.description.split(',')[0])).toEqual(['PKCS', 'JKS', 'KEY'].map((f) => `Released: certificate-key of certificate web.example.test (fileType ${f}`));
      expect(JSON.stringify(await s.dataSource.query('SELECT * FROM audit'))).not.toContain('Store-Pass-1');
    });
  });

  it('getCertificateKeyStore answers the keystore of the StoreType chosen at creation (JKS)', async () => {
    const file = await api.download('getCertificateKeyStore', { common_name: 'web.example.test', serial_number: web.serialNumber });
    expect(file.type).toContain('application/x-java-keystore');
    tools.file('store.jks', file.body);
    expect(tools.keytool('-list', '-keystore', 'store.jks', '-storepass', 'Store-Pass-1')).toContain('PrivateKeyEntry');
  });

  it('getCertificatePassphrase answers details.Passphrase and the message form of docs/api/pki.md', async () => {
    const res = await api.get('getCertificatePassphrase', { common_name: 'web.example.test' });
    expect(res.body).toEqual({
      name: 'GetCertificatePassphrase',
      result: { status: 'Success', message: 'Private key passphrase of certificate web.example.test is Store-Pass-1' },
      details: { Passphrase: 'Store-Pass-1' },
    });
  });

  it('without PASSWORD a password is generated; the passphrase opens the PKCS#12', async () => {
    await api.post('createCertificate', { CNAME: 'nopass.example.test', ALG: 'EC', LEN: '384' });
    const pass = (await api.get('getCertificatePassphrase', { common_name: 'nopass.example.test' })).body.details.Passphrase;
    expect(pass).toMatch(/^[A-Za-z0-9_-]{24}$/);
    tools.file('nopass.p12', (await api.download('getCertificate', { common_name: 'nopass.example.test', fileType: 'PKCS' })).body);
    expect(tools.openssl('pkcs12', '-in', 'nopass.p12', '-passin', `pass:${pass}`, '-nokeys')).toContain('nopass.example.test');
  });

  it('getCertificateDetails answers the record of docs/api/pki.md', async () => {
    const res = await api.get('getCertificateDetails', { common_name: 'web.example.test' });
    expect(res.body).toMatchObject({ name: 'GetCertificateDetails', result: { status: 'Success', message: 'Certificate details fetched successfully' } });
    const [d] = res.body.details;
    expect(d).toMatchObject({
      certtype: 'Self-Signed',
      certificateTemplate: 'WebServer',
      isCertInstalledMulipleServers: false,
      issuer: { cname: 'web.example.test', org: 'Example', orgunit: 'Ops' },
      issuedto: { cname: 'web.example.test', org: 'Example', orgunit: 'Ops' },
      intermediate: { certificates: [] },
      CertificateId: String(web.Certificate_ID),
      endpoint: {
        hostName: 'web.example.test', port: '443', certSignAlg: 'SHA256withRSA', Sans: 'web.example.test, www.example.test, 192.0.2.10',
        serial: web.serialNumber, keyalg: 'RSA', PublicKeyLength: 2048, PrivateKey: true, isCLOUDHOST: false,
      },
    });
    expect(d.endpoint.from_date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d$/);
    expect(d.endpoint.fingerPrint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  describe('several certificates with one common name', () => {
    let older: string;
    let newer: string;
    beforeAll(async () => {
      older = (await api.post('createCertificate', { CNAME: 'twin.example.test', PASSWORD: 'Twin-1' })).body.details.serialNumber;
      await new Promise((r) => setTimeout(r, 1100));
      newer = (await api.post('createCertificate', { CNAME: 'twin.example.test', PASSWORD: 'Twin-2' })).body.details.serialNumber;
    });

    it('serial_number picks one; without it the newest (latest notBefore) answers', async () => {
      const pick = async (d: Record<string, unknown>) => (await api.get('getCertificateDetails', { common_name: 'twin.example.test', ...d })).body.details[0].endpoint.serial;
      expect(await pick({})).toBe(newer);
      expect(await pick({ serial_number: older.toLowerCase() })).toBe(older);
      expect(await pick({ serial_number: newer.replace(/(..)(?!$)/g, '$1:') })).toBe(newer);
      const none = await api.get('getCertificateDetails', { common_name: 'twin.example.test', serial_number: '01' });
      expect(none.body.result).toEqual({ status: 'Failed', message: 'No certificate with common name twin.example.test and serial number 01 was found' });
    });

    it('deleteCertificate removes the one picked the same way', async () => {
      const res = await api.del('deleteCertificate', { common_name: 'twin.example.test' });
      expect(res.body).toEqual({ name: 'DeleteCertificate', result: { status: 'Success', message: 'Certificate twin.example.test deleted successfully.' } });
      const left = await api.get('getCertificateDetails', { common_name: 'twin.example.test' });
      expect(left.body.details[0].endpoint.serial).toBe(older);
      const audit = await s.dataSource.query(`SELECT target, description FROM audit WHERE operation = 'Certificate Deleted'`);
      expect(audit).toEqual([{ target: 'twin.example.test', description: `serial ${newer}` }]);
    });
  });

  describe('addCertificate', () => {
    beforeAll(() => {
      tools.openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-subj', '/CN=Imported Root', '-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=keyCertSign,cRLSign', '-out', 'ca.pem');
      tools.openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384', '-nodes', '-keyout', 'leaf.key', '-subj', '/CN=imported.example.test', '-out', 'leaf.csr');
      tools.openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '20', '-sha384', '-out', 'leaf.pem');
      tools.file('bundle.pem', Buffer.concat([read('ca.pem'), read('leaf.pem')]));
      tools.openssl('pkcs12', '-export', '-in', 'leaf.pem', '-inkey', 'leaf.key', '-certfile', 'ca.pem', '-passout', 'pass:P12-Pass-1', '-out', 'leaf.p12');
      tools.keytool('-genkeypair', '-alias', 'app', '-keyalg', 'RSA', '-keysize', '2048', '-dname', 'CN=jks.example.test', '-validity', '30', '-keystore', 'app.jks', '-storetype', 'JKS', '-storepass', 'Jks-Pass-1', '-keypass', 'Jks-Pass-1');
    });

    it('CERTFILE: a PEM chain in any order is stored leaf first with its chain', async () => {
      const res = await api.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: read('bundle.pem'), name: 'bundle.pem' } });
      expect(res.body).toEqual({ name: 'AddCertificate', result: { Status: 'Success', Message: 'Certificate imported.example.test added successfully.' } });
      const d = (await api.get('getCertificateDetails', { common_name: 'imported.example.test' })).body.details[0];
      expect(d).toMatchObject({ certtype: 'CA-Signed', issuer: { cname: 'Imported Root' }, intermediate: { certificates: [{ cname: 'Imported Root' }] }, endpoint: { PrivateKey: false, keyalg: 'EC', PublicKeyLength: 384 } });
      tools.file('back.pem', (await api.download('getCertificate', { common_name: 'imported.example.test', fileType: 'PEM' })).body);
      expect(tools.openssl('verify', '-CAfile', 'ca.pem', 'back.pem')).toContain('back.pem: OK');
      const key = await api.get('getCertificate', { common_name: 'imported.example.test', fileType: 'KEY' });
      expect(key.body.result).toEqual({ status: 'Failed', message: 'This server does not hold the private key of certificate imported.example.test' });
    });

    it('CERTFILE: a DER certificate', async () => {
      tools.openssl('x509', '-in', 'ca.pem', '-outform', 'DER', '-out', 'ca.der');
      const res = await api.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: read('ca.der'), name: 'ca.der' } });
      expect(res.body.result.Message).toBe('Certificate Imported Root added successfully.');
    });

    it('KEYSTORE: an openssl PKCS#12 with PASSWORD keeps the key; the KEY export matches it', async () => {
      const res = await api.upload('addCertificate', { fileType: 'KEYSTORE', PASSWORD: 'P12-Pass-1' }, { File: { body: read('leaf.p12'), name: 'leaf.p12' } });
      expect(res.body.result).toEqual({ Status: 'Success', Message: 'Certificate imported.example.test already exists; its chain and key were updated.' });
      tools.file('imported.key', (await api.download('getCertificate', { common_name: 'imported.example.test', fileType: 'KEY' })).body);
      expect(tools.openssl('pkey', '-in', 'imported.key', '-passin', 'pass:P12-Pass-1', '-pubout')).toBe(tools.openssl('x509', '-in', 'leaf.pem', '-noout', '-pubkey'));
    });

    it('KEYSTORE: a keytool JKS', async () => {
      const res = await api.upload('addCertificate', { fileType: 'KEYSTORE', PASSWORD: 'Jks-Pass-1' }, { File: { body: read('app.jks'), name: 'app.jks' } });
      expect(res.body.result.Message).toBe('Certificate jks.example.test added successfully.');
      tools.file('again.jks', (await api.download('getCertificateKeyStore', { common_name: 'jks.example.test' })).body);
      expect(tools.keytool('-list', '-keystore', 'again.jks', '-storepass', 'Jks-Pass-1')).toContain('PrivateKeyEntry');
    });

    it.each([
      ['a wrong keystore password', { fileType: 'KEYSTORE', PASSWORD: 'wrong' }, 'leaf.p12', /password/i],
      ['no file', { fileType: 'CERTFILE' }, undefined, /The certificate file \(part File\) is required/],
      ['a file that is no certificate', { fileType: 'CERTFILE' }, 'leaf.key', /No certificate found|could not be parsed/],
    ])('refuses %s', async (_, details, file, message) => {
      const res = await api.upload('addCertificate', details, file ? { File: { body: read(file), name: file } } : {});
      expect(res.body.result.Status).toBe('Failed');
      expect(res.body.result.Message).toMatch(message);
    });
  });

  describe('lists', () => {
    it('getAllSSLCertificates lists every certificate with the list entry fields', async () => {
      const res = await api.get('getAllSSLCertificates');
      expect(res.body).toMatchObject({ name: 'GetAllSSLCertificates', result: { status: 'Success' } });
      expect(res.body.totalRows).toBe(res.body.details.length);
      const entry = res.body.details.find((e: Record<string, unknown>) => e['Common Name'] === 'web.example.test');
      expect(entry).toEqual({
        CertID: web.Certificate_ID, 'DNS Name/FQDN': 'web.example.test', Port: 443, 'Common Name': 'web.example.test', Issuer: 'web.example.test',
        FromDate: expect.stringMatching(LIST_DATE), ExpiryDate: expect.stringMatching(LIST_DATE), serialNumber: expect.stringMatching(/^[0-9a-f]+$/i),
        KeyStrength: '2048', SignatureAlgorithm: 'SHA256withRSA', 'Created By': 'admin', 'Expiry Notification Email': '',
        Description: '', sslAdditionalFieldData: [],
      });
      // A client picks an entry from the list and asks for it by that serial.
      const picked = await api.get('getCertificateDetails', { common_name: 'web.example.test', serial_number: entry.serialNumber });
      expect(picked.body.details[0].endpoint).toMatchObject({ serial: entry.serialNumber, expiry_date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d$/) });
    });

    it.each([
      [{ withExpiryDaysLessThan: '1' }, ['web.example.test']],
      [{ withKeyLength: 384 }, ['imported.example.test', 'nopass.example.test']],
      [{ withSignatureAlgorithm: 'sha384withecdsa' }, ['nopass.example.test']],
      [{ withSignatureAlgorithm: 'SHA384withRSA' }, ['imported.example.test']],
      [{ withKeyLength: '384', withSignatureAlgorithm: 'SHA384', withExpiryDaysLessThan: 25 }, ['imported.example.test']],
    ])('filters %j', async (filters, names) => {
      const res = await api.get('getAllSSLCertificates', filters);
      expect(res.body.details.map((e: Record<string, string>) => e['Common Name']).sort()).toEqual(names);
    });

    it('getAllSSLCertsExpiryDate lists common names and expiry dates, soonest first', async () => {
      const res = await api.get('getAllSSLCertsExpiryDate');
      expect(res.body).toMatchObject({ name: 'GetAllSSLCertificatesExpiryDate', result: { status: 'Success' } });
      expect(res.body.details[0]).toEqual({ 'Common Name': 'web.example.test', ExpiryDate: expect.stringMatching(LIST_DATE), serialNumber: expect.stringMatching(/^[0-9a-f]+$/i) });
    });
  });

  it('creates the root, issuing and service CAs exactly once when several instances start together', async () => {
    await s.dataSource.query('DELETE FROM certificate_authorities WHERE parent_id IS NOT NULL');
    await s.dataSource.query('DELETE FROM certificate_authorities');
    const instances = [s.vault, s.pki, s.vault, s.pki].map((app) => app.get(CertificateAuthoritiesService));
    await Promise.all(instances.map((cas) => cas.ensureDefaults()));
    const rows = await s.dataSource.query('SELECT name, kind, org_id FROM certificate_authorities ORDER BY id');
    expect(rows).toEqual([
      { name: 'root-ca', kind: 'root', org_id: null },
      { name: 'issuing-ca', kind: 'intermediate', org_id: null },
      { name: 'service-ca', kind: 'root', org_id: null },
    ]);
  });

  describe('permissions', () => {
    it('a Password Auditor reads public material but not keys, passphrases or changes', async () => {
      expect((await auditor.get('getAllSSLCertificates')).body.result.status).toBe('Success');
      expect((await auditor.download('getCertificate', { common_name: 'web.example.test', fileType: 'DER' })).type).toContain('application/pkix-cert');
      const key = await auditor.get('getCertificate', { common_name: 'web.example.test', fileType: 'KEY' });
      expect(key.body.result).toEqual({ status: 'Failed', message: 'Your role (Password Auditor) does not allow this operation' });
      for (const res of [
        await auditor.get('getCertificatePassphrase', { common_name: 'web.example.test' }),
        await auditor.get('getCertificateKeyStore', { common_name: 'web.example.test' }),
        await auditor.post('createCertificate', { CNAME: 'x.example.test' }),
        await auditor.del('deleteCertificate', { common_name: 'web.example.test' }),
      ]) {
        expect(res.body.result.status).toBe('Failed');
      }
    });
  });
});
