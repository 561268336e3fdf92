import { issueOcspCertificate, startOcspResponder } from '../../../../../test/support/ocsp-responder';
import {
  createCa,
  createCrl,
  issueCertificate,
  KeyedCertificate,
  Peer,
  startHttpServer,
  startNodeTlsServer,
  startSilentServer,
} from '../../../../../test/support/tls-peers';
import { scanEndpoint } from '../scan-endpoint';
import { checkRevocation } from './check-revocation';
import { freePort } from '../../../../../test/support/free-port';

describe('checkRevocation (CRL distribution points)', () => {
  const peers: Peer[] = [];
  let ca: KeyedCertificate;
  let revoked: KeyedCertificate;
  let good: KeyedCertificate;
  let crlPort: number;

  beforeAll(async () => {
    ca = await createCa('CN=Revocation Test CA');
    const otherCa = await createCa('CN=Revocation Test CA');
    // The CRL server needs its port before leaves can point at it; routes are filled in after.
    const routes: Record<string, Buffer> = {};
    const crlServer = await startHttpServer('127.0.0.1', routes);
    peers.push(crlServer);
    crlPort = crlServer.port;
    const url = (path: string) => `http://127.0.0.1:${crlPort}${path}`;
    revoked = await issueCertificate(ca, { subject: 'CN=revoked.test', serialNumber: '0badc0de', crlUrl: url('/ca.crl') });
    good = await issueCertificate(ca, { subject: 'CN=good.test', serialNumber: '600d', crlUrl: url('/ca.crl') });
    routes['/ca.crl'] = await createCrl(ca, ['0badc0de']);
    // Same issuer name, different key: must be rejected on signature, not trusted by name.
    routes['/forged.crl'] = await createCrl(otherCa, ['600d']);
  });

  afterAll(async () => {
    await Promise.all(peers.map((peer) => peer.stop()));
  });

  it('says revoked when the issuer-signed CRL lists the serial', async () => {
    await expect(checkRevocation(revoked.der, ca.der)).resolves.toEqual({ revoked: true, errors: [] });
  });

  it('says not revoked when the CRL does not list it', async () => {
    await expect(checkRevocation(good.der, ca.der)).resolves.toEqual({ revoked: false, errors: [] });
  });

  it('is unknown when the CRL is forged, missing, or there is no issuer', async () => {
    const forgedLeaf = await issueCertificate(ca, { subject: 'CN=f.test', serialNumber: '600d', crlUrl: `http://127.0.0.1:${crlPort}/forged.crl` });
    const forged = await checkRevocation(forgedLeaf.der, ca.der);
    expect(forged).toEqual({ revoked: null, errors: [expect.stringContaining('bad signature')] });

    const missingLeaf = await issueCertificate(ca, { subject: 'CN=m.test', serialNumber: '77', crlUrl: `http://127.0.0.1:${crlPort}/none.crl` });
    expect(await checkRevocation(missingLeaf.der, ca.der)).toEqual({ revoked: null, errors: [expect.stringContaining('HTTP 404')] });

    expect(await checkRevocation(revoked.der, undefined)).toEqual({ revoked: null, errors: ['Revocation: issuer certificate not presented'] });
  });

  it('refuses a CRL URL on a metadata or link-local address without connecting', async () => {
    for (const crlUrl of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/ca.crl']) {
      const leaf = await issueCertificate(ca, { subject: 'CN=meta.test', serialNumber: '79', crlUrl });
      const result = await checkRevocation(leaf.der, ca.der);
      expect(result).toEqual({ revoked: null, errors: [expect.stringContaining('link-local, metadata or reserved address')] });
      expect(result.errors.join()).not.toMatch(/ENETUNREACH|ECONNREFUSED|Timed out/);
    }
  });

  it('gives up on a CRL server that never answers', async () => {
    const silent = await startSilentServer();
    peers.push(silent);
    const leaf = await issueCertificate(ca, { subject: 'CN=s.test', serialNumber: '78', crlUrl: `http://127.0.0.1:${silent.port}/ca.crl` });
    const started = Date.now();
    const result = await checkRevocation(leaf.der, ca.der, { timeoutMs: 300 });
    expect(result).toEqual({ revoked: null, errors: [expect.stringContaining('Timed out')] });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('marks the endpoint revoked when its presented leaf is on the CRL', async () => {
    const server = await startNodeTlsServer({ keyPem: revoked.keyPem, chainPem: [revoked.certPem, ca.certPem] });
    peers.push(server);
    const record = await scanEndpoint({ host: server.host, port: server.port, timeoutMs: 3000 });
    expect(record.revoked).toBe(true);
    expect(record.errors).toBeUndefined();
  });
});

describe('checkRevocation (CRL and OCSP together)', () => {
  const peers: Peer[] = [];
  let ca: KeyedCertificate;
  let crlUrl: (path: string) => string;
  let ocspUrl: string;
  const routes: Record<string, Buffer> = {};
  const leaf = (serialNumber: string, crl: string, ocsp = ocspUrl) =>
    issueOcspCertificate(ca, { subject: `CN=${serialNumber}.both.test`, serialNumber, crlUrl: crlUrl(crl), ocspUrl: ocsp });

  beforeAll(async () => {
    ca = await createCa('CN=Combined Revocation CA');
    const crlServer = await startHttpServer('127.0.0.1', routes);
    peers.push(crlServer);
    crlUrl = (path) => `http://127.0.0.1:${crlServer.port}${path}`;
    // The CRL and the responder disagree on purpose: each says revoked for one serial.
    routes['/ca.crl'] = await createCrl(ca, ['c1a1']);
    routes['/forged.crl'] = await createCrl(await createCa('CN=Combined Revocation CA'), []);
    const responder = await startOcspResponder({
      ca,
      entries: [
        { serialNumber: 'c1a1', status: 'V' },
        { serialNumber: '0c5b', status: 'R' },
        { serialNumber: '600d', status: 'V' },
      ],
    });
    peers.push(responder);
    ocspUrl = `http://127.0.0.1:${responder.port}/`;
  });

  afterAll(async () => {
    await Promise.all(peers.map((peer) => peer.stop()));
  });

  it('says revoked when either source says revoked', async () => {
    const onCrl = await leaf('c1a1', '/ca.crl');
    await expect(checkRevocation(onCrl.der, ca.der)).resolves.toEqual({ revoked: true, errors: [] });
    const byOcsp = await leaf('0c5b', '/ca.crl');
    await expect(checkRevocation(byOcsp.der, ca.der)).resolves.toEqual({ revoked: true, errors: [] });
    const byOcspOnly = await leaf('0c5b', '/none.crl');
    expect(await checkRevocation(byOcspOnly.der, ca.der)).toEqual({ revoked: true, errors: [expect.stringContaining('HTTP 404')] });
  });

  it('says not revoked when one source says good and the other cannot decide', async () => {
    const good = await leaf('600d', '/ca.crl');
    await expect(checkRevocation(good.der, ca.der)).resolves.toEqual({ revoked: false, errors: [] });
    const ocspOnly = await leaf('600d', '/forged.crl');
    expect(await checkRevocation(ocspOnly.der, ca.der)).toEqual({ revoked: false, errors: [expect.stringContaining('bad signature')] });
    const crlOnly = await leaf('600d', '/ca.crl', `http://127.0.0.1:${await freePort()}/`);
    expect(await checkRevocation(crlOnly.der, ca.der)).toEqual({ revoked: false, errors: [expect.stringMatching(/^OCSP: .*ECONNREFUSED/)] });
  });

  it('is unknown when neither source can decide, keeping both errors', async () => {
    const neither = await leaf('600d', '/none.crl', `http://127.0.0.1:${await freePort()}/`);
    expect(await checkRevocation(neither.der, ca.der)).toEqual({
      revoked: null,
      errors: [expect.stringMatching(/^CRL: HTTP 404/), expect.stringMatching(/^OCSP: .*ECONNREFUSED/)],
    });
  });

  it('marks the endpoint revoked when only OCSP knows', async () => {
    const revoked = await issueOcspCertificate(ca, { subject: 'CN=ocsp-only.test', serialNumber: '0c5b', ocspUrl });
    const server = await startNodeTlsServer({ keyPem: revoked.keyPem, chainPem: [revoked.certPem, ca.certPem] });
    peers.push(server);
    const record = await scanEndpoint({ host: server.host, port: server.port, timeoutMs: 3000 });
    expect(record.revoked).toBe(true);
    expect(record.errors).toBeUndefined();
  });
});
