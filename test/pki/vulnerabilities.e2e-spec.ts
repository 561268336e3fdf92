import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import {
  createCa,
  createOpensslIdentity,
  issueCertificate,
  Peer,
  startHeartbeatServer,
  startNodeTlsServer,
  startOpensslServer,
  startSslv3Server,
} from '../support/tls-peers';

const API = '/api/pki/restapi';

describe('pki getSSLVulnerabilityCount (op 42) over real probes', () => {
  let s: TestServices;
  const identity = createOpensslIdentity('weak.e2e.test');
  const peers: Record<string, Peer> = {};

  beforeAll(async () => {
    s = await startTestServices();
    const ca = await createCa();
    const leaf = await issueCertificate(ca, { subject: 'CN=tls13.e2e.test', serialNumber: '7e' });
    peers.modern = await startNodeTlsServer({ keyPem: leaf.keyPem, chainPem: [leaf.certPem, ca.certPem] });
    // TLS 1.0/1.1 only, NULL and anonymous suites at security level 0.
    peers.legacy = await startOpensslServer(identity, [
      '-no_tls1_2',
      '-no_tls1_3',
      '-cipher',
      'NULL-SHA:ADH-AES128-SHA:AECDH-AES256-SHA:AES128-SHA:@SECLEVEL=0',
    ]);
    peers.sslv3 = await startSslv3Server(identity.der);
    peers.heartbleed = await startHeartbeatServer(identity.der, true);
  });
  afterAll(async () => {
    await s.close();
    await Promise.all(Object.values(peers).map((peer) => peer.stop()));
    identity.cleanup();
  });

  const counts = async () =>
    (await request(s.pkiUrl).get(`${API}/getSSLVulnerabilityCount`).set('AUTHTOKEN', s.adminToken)).body;

  it('counts nothing before anything was discovered', async () => {
    expect(await counts()).toEqual({
      name: 'GetSSLVulnerabilityCount',
      result: { status: 'Success', message: 'SSL vulnerability count fetched successfully' },
      details: { SSLVulnerabilityCount: { 'Weak Cipher Suites': 0, 'Poodle SSL': 0, Revoked: 0, 'SSLv3 Enabled': 0, 'No TLS1.2': 0, Heartbleed: 0 } },
    });
  });

  it('inventories legacy servers Node TLS cannot talk to, and stores what the probes found', async () => {
    const lines = ['modern', 'legacy', 'sslv3', 'heartbleed'].map((name) => `127.0.0.1 ${peers[name]!.port}`).join('\n');
    const res = await request(s.pkiUrl)
      .post(`${API}/sslCertFileBasedDiscovery`)
      .set('AUTHTOKEN', s.adminToken)
      .field('TIMEOUT', '3')
      .field('WAIT', '30')
      .attach('File', Buffer.from(lines), 'targets.txt');
    expect(res.body.result.status).toBe('Success');
    const entry = (name: string) => res.body.details[`127.0.0.1:${peers[name]!.port}`];
    expect(entry('modern')).toEqual(['SUCCESS', expect.stringContaining('CN=tls13.e2e.test')]);
    expect(entry('legacy')).toEqual(['SUCCESS', expect.stringContaining('CN=weak.e2e.test')]);
    expect(entry('sslv3')).toEqual(['SUCCESS', expect.stringMatching(/CN=weak\.e2e\.test.*\(legacy handshake, SSLv3\)$/)]);
    expect(entry('heartbleed')).toEqual(['SUCCESS', expect.stringMatching(/CN=weak\.e2e\.test.*\(legacy handshake, TLSv1\.2\)$/)]);

    const scans: Record<string, Record<string, any>> = {};
    for (const [name, peer] of Object.entries(peers)) {
      const [row] = await s.dataSource.query(`SELECT scan FROM certificate_endpoints WHERE port = $1`, [peer.port]);
      scans[name] = row.scan;
    }
    expect(scans.modern).toMatchObject({ weakCiphers: [], noTls12: false, sslv3: false, heartbleed: false });
    expect(scans.legacy).toMatchObject({ noTls12: true, sslv3: false, protocols: { TLSv1: true, 'TLSv1.1': true, 'TLSv1.2': false } });
    expect([...scans.legacy!.weakCiphers].sort()).toEqual([
      'TLS_DH_anon_WITH_AES_128_CBC_SHA',
      'TLS_ECDH_anon_WITH_AES_256_CBC_SHA',
      'TLS_RSA_WITH_NULL_SHA',
    ]);
    // The record-level SSLv3 server chooses RC4/3DES when offered only those.
    expect(scans.sslv3).toMatchObject({ sslv3: true, poodle: true, noTls12: true, protocols: { SSLv3: true, 'TLSv1.2': false } });
    expect(scans.sslv3!.weakCiphers).toEqual(expect.arrayContaining(['TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_RSA_WITH_RC4_128_SHA']));
    // The leaky heartbeat server only plays the first flight, so no real TLS 1.2 handshake completes.
    expect(scans.heartbleed).toMatchObject({ heartbleed: true, sslv3: false, weakCiphers: [] });
  });

  it('shows the scan of each endpoint in the certificate details', async () => {
    const res = await request(s.pkiUrl)
      .get(`${API}/getCertificateDetails`)
      .set('AUTHTOKEN', s.adminToken)
      .query({ INPUT_DATA: JSON.stringify({ operation: { Details: { common_name: 'tls13.e2e.test' } } }) });
    const record = [res.body.details].flat()[0];
    expect(record.vulnerabilities).toEqual([
      expect.objectContaining({ port: String(peers.modern!.port), 'Weak Cipher Suites': [], 'No TLS1.2': false, Heartbleed: false, 'SSLv3 Enabled': false }),
    ]);
  });

  it('counts each vulnerability over the stored scans', async () => {
    expect((await counts()).details.SSLVulnerabilityCount).toEqual({
      // The TLS 1.0/1.1 server (NULL, anonymous) and the SSLv3 server (RC4, 3DES).
      'Weak Cipher Suites': 2,
      'Poodle SSL': 1,
      Revoked: 0,
      'SSLv3 Enabled': 1,
      // Everything but the TLS 1.3 server: TLS 1.0/1.1, SSLv3 and the first-flight-only heartbeat fake.
      'No TLS1.2': 3,
      Heartbleed: 1,
    });
  });

  it('counts a certificate revoked by one of our CAs as Revoked', async () => {
    await s.dataSource.query(`UPDATE certificates SET revoked_at = now() WHERE common_name = 'tls13.e2e.test'`);
    expect((await counts()).details.SSLVulnerabilityCount.Revoked).toBe(1);
  });

  it('does not double-count an endpoint discovered again', async () => {
    const res = await request(s.pkiUrl)
      .post(`${API}/sslCertSingleDiscovery`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ HOST: '127.0.0.1', PORT: String(peers.sslv3!.port), TIMEOUT: '3' }) });
    expect(res.body.details['127.0.0.1'][0]).toBe('SUCCESS');
    // Rediscovery refreshes the same endpoint; counts do not double.
    expect((await counts()).details.SSLVulnerabilityCount['SSLv3 Enabled']).toBe(1);
  });

  it('is readable with PkiRead (a Password Auditor)', async () => {
    const auditor = await createUserWithToken(s, 'vuln-auditor', 'Password Auditor');
    const res = await request(s.pkiUrl).get(`${API}/getSSLVulnerabilityCount`).set('AUTHTOKEN', auditor.token);
    expect(res.body.details.SSLVulnerabilityCount.Heartbleed).toBe(1);
  });
});
