import {
  createCa,
  createOpensslIdentity,
  issueCertificate,
  Peer,
  startHeartbeatServer,
  startNodeTlsServer,
  startOpensslServer,
  startSslv3Server,
} from '../../../../test/support/tls-peers';
import { countVulnerabilities } from './counts';
import { probeHeartbleed } from './probes/heartbleed';
import { probeSslv3 } from './probes/sslv3';
import { probeWeakCiphers } from './probes/weak-ciphers';
import { scanEndpoint } from './scan-endpoint';
import { freePort } from '../../../../test/support/free-port';

describe('TLS vulnerability probes', () => {
  const identity = createOpensslIdentity('weak.test');
  const peers: Peer[] = [];
  const target = (peer: Peer, timeoutMs = 3000) => ({ host: peer.host, port: peer.port, timeoutMs });

  afterAll(async () => {
    await Promise.all(peers.map((peer) => peer.stop()));
    identity.cleanup();
  });

  async function start<P extends Peer>(peer: Promise<P>): Promise<P> {
    const started = await peer;
    peers.push(started);
    return started;
  }

  describe('against openssl s_server limited to TLS 1.0/1.1 with weak suites', () => {
    let legacy: Peer;
    beforeAll(async () => {
      // This OpenSSL build has no RC4/3DES/EXPORT left; NULL and anonymous suites remain at level 0.
      legacy = await start(
        startOpensslServer(identity, ['-no_tls1_2', '-no_tls1_3', '-cipher', 'NULL-SHA:ADH-AES128-SHA:AECDH-AES256-SHA:AES128-SHA:@SECLEVEL=0']),
      );
    });

    it('lists every weak suite it accepts and nothing else', async () => {
      const accepted = await probeWeakCiphers(target(legacy));
      expect(accepted.sort()).toEqual(['TLS_DH_anon_WITH_AES_128_CBC_SHA', 'TLS_ECDH_anon_WITH_AES_256_CBC_SHA', 'TLS_RSA_WITH_NULL_SHA']);
    });

    it('records no TLS 1.2, the legacy protocols, and no SSLv3 or heartbleed', async () => {
      const record = await scanEndpoint(target(legacy));
      expect(record).toMatchObject({
        sslv3: false,
        poodle: false,
        noTls12: true,
        heartbleed: false,
        revoked: null,
        protocols: { SSLv3: false, TLSv1: true, 'TLSv1.1': true, 'TLSv1.2': false, 'TLSv1.3': false },
      });
      expect(record.weakCiphers).toHaveLength(3);
      expect(record.errors).toBeUndefined();
    });
  });

  it('finds nothing on a modern TLS 1.3-only server', async () => {
    const ca = await createCa();
    const leaf = await issueCertificate(ca, { subject: 'CN=modern.test', serialNumber: '44' });
    const modern = await start(startNodeTlsServer({ keyPem: leaf.keyPem, chainPem: [leaf.certPem, ca.certPem] }));
    const record = await scanEndpoint(target(modern));
    expect(record).toEqual({
      weakCiphers: [],
      sslv3: false,
      poodle: false,
      noTls12: false,
      heartbleed: false,
      revoked: null,
      protocols: { SSLv3: false, TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': false, 'TLSv1.3': true },
      checkedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(countVulnerabilities([record])).toEqual({
      'Weak Cipher Suites': 0,
      'Poodle SSL': 0,
      Revoked: 0,
      'SSLv3 Enabled': 0,
      'No TLS1.2': 0,
      Heartbleed: 0,
    });
  });

  it('detects SSLv3 with a CBC suite as SSLv3 enabled and POODLE', async () => {
    const sslv3 = await start(startSslv3Server(identity.der));
    await expect(probeSslv3(target(sslv3))).resolves.toEqual({ sslv3: true, poodle: true });
  });

  it('detects a heartbeat answer longer than the request as heartbleed', async () => {
    const leaky = await start(startHeartbeatServer(identity.der, true));
    await expect(probeHeartbleed(target(leaky))).resolves.toBe(true);
  });

  it('does not flag a heartbeat server that drops the malformed request', async () => {
    const patched = await start(startHeartbeatServer(identity.der, false));
    const started = Date.now();
    await expect(probeHeartbleed(target(patched, 500))).resolves.toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('records unreachable endpoints as errors, not as findings', async () => {
    const record = await scanEndpoint({ host: '127.0.0.1', port: await freePort(), timeoutMs: 1000 });
    expect(record).toMatchObject({ weakCiphers: [], sslv3: false, poodle: false, noTls12: false, heartbleed: false, revoked: null });
    expect(record.errors).toEqual(expect.arrayContaining(['Weak ciphers: Connection refused', 'TLSv1.2: Connection refused']));
  });
});
