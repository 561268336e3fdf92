import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { inputData } from '../support/http';

const API = '/api/pki/restapi';

/** A JKS made by keytool and a PKCS#12 made by openssl, in a folder used as UNMANAGED_CERT_PATH. */
function makeSharedPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'unmanaged-'));
  execFileSync('keytool', [
    '-genkeypair', '-keystore', join(dir, 'app.jks'), '-storetype', 'JKS', '-storepass', 'jks-pass', '-keypass', 'jks-pass',
    '-alias', 'app', '-dname', 'CN=jks.unmanaged.test', '-keyalg', 'RSA', '-keysize', '2048', '-validity', '30',
  ], { stdio: 'ignore' });
  const work = mkdtempSync(join(tmpdir(), 'p12-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=p12.unmanaged.test', '-days', '30',
    '-keyout', join(work, 'key.pem'), '-out', join(work, 'cert.pem'),
  ], { stdio: 'ignore' });
  mkdirSync(join(dir, 'web'));
  execFileSync('openssl', [
    'pkcs12', '-export', '-in', join(work, 'cert.pem'), '-inkey', join(work, 'key.pem'), '-out', join(dir, 'web', 'site.p12'), '-passout', 'pass:p12-pass',
  ], { stdio: 'ignore' });
  rmSync(work, { recursive: true, force: true });
  writeFileSync(join(dir, 'notes.txt'), 'not a keystore');
  return dir;
}

describe('pki unmanaged certificates (ops 44, 45)', () => {
  let s: TestServices;
  let dir: string;

  beforeAll(async () => {
    dir = makeSharedPath();
    s = await startTestServices({ UNMANAGED_CERT_PATH: dir });
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = (type?: string) =>
    request(s.pkiUrl).get(`${API}/getUnmanagedCertList`).set('AUTHTOKEN', s.adminToken).query(type ? { INPUT_DATA: inputData({ type }) } : {});
  const importWith = (passwords: Record<string, string>) =>
    request(s.pkiUrl)
      .get(`${API}/discoverUnmanagedCert`)
      .set('AUTHTOKEN', s.adminToken)
      .attach('File', Buffer.from(JSON.stringify(passwords)), 'passwords.txt');

  it('lists JKS and PKCS#12 files of the shared path as <file>::<n> with a password placeholder', async () => {
    const res = await list('sharedpath');
    expect(res.body).toEqual({
      name: 'getUnmanagedCertList',
      result: { status: 'Success', message: '2 unmanaged keystore file(s) found; fill in each password and upload the object to discoverUnmanagedCert' },
      totalRows: 2,
      details: [{ 'app.jks::1': 'Enter Password', 'web/site.p12::2': 'Enter Password' }],
    });
  });

  it('answers clearly that no load balancer is configured', async () => {
    expect((await list('loadbalancer')).body).toEqual({
      name: 'getUnmanagedCertList',
      result: { status: 'Failed', message: 'No load balancer is configured; only type=sharedpath (the folder set by UNMANAGED_CERT_PATH) can be scanned' },
    });
  });

  it('imports what it can and reports a wrong password per file', async () => {
    const res = await importWith({ 'app.jks::1': 'jks-pass', 'web/site.p12::2': 'wrong', 'ghost.jks::3': 'x' });
    expect(res.body).toEqual({
      name: 'DiscoverUnmanagedCert',
      result: {
        Status: 'Success',
        Message:
          '1 keystore file(s) imported successfully; failed: web/site.p12::2: Wrong password; ghost.jks::3: Not an unmanaged keystore in the shared path (already imported, moved or misspelt)',
      },
      details: {
        ImportedCertificate: ['app.jks'],
        FailedCertificate: {
          'web/site.p12::2': 'Wrong password',
          'ghost.jks::3': 'Not an unmanaged keystore in the shared path (already imported, moved or misspelt)',
        },
      },
      ImportedCertificate: ['app.jks'],
    });
    const [cert] = await s.dataSource.query(
      `SELECT source, store_type, private_key IS NOT NULL AS has_key, key_password IS NOT NULL AS has_password FROM certificates WHERE common_name = 'jks.unmanaged.test'`,
    );
    expect(cert).toEqual({ source: 'imported', store_type: 'JKS', has_key: true, has_password: true });
    const audit = await s.dataSource.query(`SELECT * FROM audit WHERE operation = 'Unmanaged Certificates Imported'`);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ category: 'Pki', target: 'app.jks' });
    expect(JSON.stringify(audit)).not.toContain('jks-pass');
  });

  it('no longer lists an imported file; the rest are renumbered', async () => {
    expect((await list()).body.details).toEqual([{ 'web/site.p12::1': 'Enter Password' }]);
  });

  it('fails (capitalised) when nothing could be imported, including an unfilled placeholder', async () => {
    const res = await importWith({ 'web/site.p12::1': 'Enter Password' });
    expect(res.body.result).toEqual({ Status: 'Failed', Message: 'No keystore file was imported; failed: web/site.p12::1: No password given' });
    // KMP's documented placeholder, sent back unfilled as KMP's part name uploadedFile, is unfilled too.
    const kmp = await request(s.pkiUrl)
      .get(`${API}/discoverUnmanagedCert`)
      .set('AUTHTOKEN', s.adminToken)
      .attach('uploadedFile', Buffer.from(JSON.stringify({ 'web/site.p12::1': 'ENTER_THE_PASSWORD' })), 'passwords.txt');
    expect(kmp.body.result).toEqual({ Status: 'Failed', Message: 'No keystore file was imported; failed: web/site.p12::1: No password given' });
    const bad = await request(s.pkiUrl).post(`${API}/discoverUnmanagedCert`).set('AUTHTOKEN', s.adminToken).attach('File', Buffer.from('not json'), 'p.txt');
    expect(bad.body.result).toEqual({
      Status: 'Failed',
      Message: 'The uploaded file must be a JSON object mapping "<file>::<n>" to the keystore password',
    });
  });

  it('imports the PKCS#12 with its password (list pasted back as returned, in KMP\'s uploadedFile parameter); the list is then empty', async () => {
    const res = await request(s.pkiUrl)
      .get(`${API}/discoverUnmanagedCert`)
      .set('AUTHTOKEN', s.adminToken)
      .query({ INPUT_DATA: inputData({ uploadedFile: [{ 'web/site.p12::1': 'p12-pass' }] }) });
    expect(res.body.result).toEqual({ Status: 'Success', Message: '1 keystore file(s) imported successfully' });
    const [cert] = await s.dataSource.query(`SELECT store_type, serial_number FROM certificates WHERE common_name = 'p12.unmanaged.test'`);
    expect(cert.store_type).toBe('PKCS12');
    // Sealed the way the certificate service opens it.
    const passphrase = await request(s.pkiUrl)
      .get(`${API}/getCertificatePassphrase`)
      .set('AUTHTOKEN', s.adminToken)
      .query({ INPUT_DATA: inputData({ common_name: 'p12.unmanaged.test', serial_number: cert.serial_number }) });
    expect(passphrase.body.details).toEqual({ Passphrase: 'p12-pass' });
    expect((await list()).body).toEqual({
      name: 'getUnmanagedCertList',
      result: { status: 'Success', message: 'No unmanaged keystore files found' },
      totalRows: 0,
      details: [{}],
    });
  });

  it('lists a file again once its certificates have left the inventory', async () => {
    await s.dataSource.query(`DELETE FROM certificates WHERE common_name = 'jks.unmanaged.test'`);
    expect((await list()).body.details).toEqual([{ 'app.jks::1': 'Enter Password' }]);
  });
});

describe('pki unmanaged certificates without a shared path', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  it('says the shared path is not configured', async () => {
    const res = await request(s.pkiUrl).get(`${API}/getUnmanagedCertList`).set('AUTHTOKEN', s.adminToken);
    expect(res.body.result).toEqual({ status: 'Failed', message: 'No shared path is configured for unmanaged certificates (set UNMANAGED_CERT_PATH)' });
  });
});

/**
 * Issue 24 item 10: each organisation lists and imports only its own folder of the shared
 * path (the provider the top level, as before; every other organisation `orgs/<id>/`), and a
 * listing hashes files as streams instead of holding them.
 */
describe('pki unmanaged certificates per organisation (issue 24 item 10)', () => {
  let s: TestServices;
  let dir: string;
  let orgB: { token: string; orgId: number };

  beforeAll(async () => {
    dir = makeSharedPath();
    s = await startTestServices({ UNMANAGED_CERT_PATH: dir });
    orgB = await createOrgWithAdmin(s, 'Unmanaged Org B');
    // B's folder holds a copy of the provider's JKS (same content) and one file of its own.
    mkdirSync(join(dir, 'orgs', String(orgB.orgId)), { recursive: true });
    copyFileSync(join(dir, 'app.jks'), join(dir, 'orgs', String(orgB.orgId), 'b-app.jks'));
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const listAs = (token: string) => request(s.pkiUrl).get(`${API}/getUnmanagedCertList`).set('AUTHTOKEN', token);
  const importAs = (token: string, passwords: Record<string, string>) =>
    request(s.pkiUrl).post(`${API}/discoverUnmanagedCert`).set('AUTHTOKEN', token).attach('File', Buffer.from(JSON.stringify(passwords)), 'passwords.txt');

  it('another organisation sees only its own folder; the provider keeps the top level without the organisations’ folders', async () => {
    expect((await listAs(orgB.token)).body.details).toEqual([{ 'b-app.jks::1': 'Enter Password' }]);
    expect((await listAs(s.adminToken)).body.details).toEqual([{ 'app.jks::1': 'Enter Password', 'web/site.p12::2': 'Enter Password' }]);
  });

  it('another organisation cannot import the provider’s files, by their names or by path tricks', async () => {
    const res = await importAs(orgB.token, { 'app.jks::1': 'jks-pass', '../../app.jks::2': 'jks-pass', 'web/site.p12::3': 'p12-pass' });
    expect(res.body.result.Status).toBe('Failed');
    expect(Object.values(res.body.details.FailedCertificate)).toEqual(Array(3).fill('Not an unmanaged keystore in the shared path (already imported, moved or misspelt)'));
    expect(await s.dataSource.query('SELECT 1 FROM certificates WHERE org_id = $1', [orgB.orgId])).toEqual([]);
  });

  it('each organisation imports its own copy into its own inventory', async () => {
    expect((await importAs(orgB.token, { 'b-app.jks::1': 'jks-pass' })).body.result.Status).toBe('Success');
    const rows = await s.dataSource.query(`SELECT org_id, file_path FROM unmanaged_cert_imports ORDER BY org_id`);
    expect(rows).toEqual([{ org_id: orgB.orgId, file_path: 'b-app.jks' }]);
    expect((await listAs(orgB.token)).body.details).toEqual([{}]);
    expect((await listAs(s.adminToken)).body.totalRows).toBe(2);
  });

  it('a listing streams: 24 files of 8 MiB are hashed without holding them in memory', async () => {
    const big = join(dir, 'orgs', String(orgB.orgId), 'big');
    mkdirSync(big);
    for (let i = 0; i < 24; i++) {
      const path = join(big, `big-${String(i).padStart(2, '0')}.p12`);
      writeFileSync(path, Buffer.alloc(0));
      truncateSync(path, 8 * 1024 * 1024 - i);
    }
    global.gc?.();
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 5);
    const res = await listAs(orgB.token);
    clearInterval(sampler);
    expect(res.body.totalRows).toBe(24);
    // Reading them into memory would take 192 MiB at once. Half of that leaves room for what
    // the garbage collector has not reclaimed yet (a clean-clone run once measured 50 MiB).
    expect(peak - before).toBeLessThan(96 * 1024 * 1024);
  });
});
