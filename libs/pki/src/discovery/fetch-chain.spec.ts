import { LookupFunction } from 'node:net';
import {
  createCa,
  issueCertificate,
  KeyedCertificate,
  loopbackLookup,
  NodeTlsPeer,
  Peer,
  startHttpServer,
  startNodeTlsServer,
  startSilentServer,
} from '../../../../test/support/tls-peers';
import { fetchCertificateChain } from './fetch-chain';
import { freePort } from '../../../../test/support/free-port';

describe('fetchCertificateChain', () => {
  let root: KeyedCertificate;
  let intermediate: KeyedCertificate;
  let leaf: KeyedCertificate;
  let tlsPeer: NodeTlsPeer;
  const peers: Peer[] = [];

  beforeAll(async () => {
    root = await createCa();
    intermediate = await issueCertificate(root, { subject: 'CN=Discovery Test Intermediate', serialNumber: '02', ca: true });
    leaf = await issueCertificate(intermediate, { subject: 'CN=sni.test', serialNumber: '0a1b', dnsNames: ['sni.test'] });
    tlsPeer = await startNodeTlsServer({ keyPem: leaf.keyPem, chainPem: [leaf.certPem, intermediate.certPem] });
    peers.push(tlsPeer);
  });

  afterAll(async () => {
    await Promise.all(peers.map((peer) => peer.stop()));
  });

  it('returns the presented chain leaf first, with protocol and cipher', async () => {
    const result = await fetchCertificateChain({ host: '127.0.0.1', port: tlsPeer.port, timeoutMs: 2000 });
    expect(result.chain).toEqual([leaf.der, intermediate.der]);
    expect(result.remoteAddress).toBe('127.0.0.1');
    expect(result.protocol).toBe('TLSv1.3');
    expect(result.cipher).toMatch(/^TLS_/);
  });

  it('sends SNI for host names but not for IP addresses', async () => {
    tlsPeer.servernames.length = 0;
    await fetchCertificateChain({ host: 'sni.test', port: tlsPeer.port, timeoutMs: 2000, lookup: loopbackLookup });
    await fetchCertificateChain({ host: '127.0.0.1', port: tlsPeer.port, timeoutMs: 2000 });
    expect(tlsPeer.servernames).toEqual(['sni.test']);
  });

  it('classifies a plain HTTP service as not TLS', async () => {
    const http = await startHttpServer();
    peers.push(http);
    await expect(fetchCertificateChain({ host: '127.0.0.1', port: http.port, timeoutMs: 2000 })).rejects.toThrow('Not a TLS service');
  });

  it('classifies a closed port as refused', async () => {
    const port = await freePort();
    await expect(fetchCertificateChain({ host: '127.0.0.1', port, timeoutMs: 2000 })).rejects.toMatchObject({
      kind: 'refused',
      message: 'Connection refused',
    });
  });

  it('gives up on a silent listener after the timeout', async () => {
    const silent = await startSilentServer();
    peers.push(silent);
    const started = Date.now();
    await expect(fetchCertificateChain({ host: '127.0.0.1', port: silent.port, timeoutMs: 300 })).rejects.toThrow('Timed out after 0.3s');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports an unresolvable name as host not found', async () => {
    const nxdomain: LookupFunction = (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
    await expect(fetchCertificateChain({ host: 'nowhere.test', port: 443, timeoutMs: 2000, lookup: nxdomain })).rejects.toThrow(
      'Host not found',
    );
  });
});
