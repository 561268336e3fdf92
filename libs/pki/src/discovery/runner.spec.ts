import { createCa, issueCertificate, Peer, startHttpServer, startNodeTlsServer } from '../../../../test/support/tls-peers';
import { discoverTargets } from './runner';
import { freePort } from '../../../../test/support/free-port';

describe('discoverTargets', () => {
  const peers: Peer[] = [];
  afterAll(async () => {
    await Promise.all(peers.map((peer) => peer.stop()));
  });

  it('reports every target in request order, with progress, bounded concurrency and the chains found', async () => {
    const ca = await createCa();
    const leaf = await issueCertificate(ca, { subject: 'CN=runner.test', serialNumber: '33' });
    const live = await startNodeTlsServer({ keyPem: leaf.keyPem, chainPem: [leaf.certPem], host: '127.0.0.2' });
    const http = await startHttpServer('127.0.0.3');
    peers.push(live, http);
    const closed = await freePort('127.0.0.4');
    const targets = [
      { host: '127.0.0.2', port: live.port },
      { host: '127.0.0.3', port: http.port },
      { host: '127.0.0.4', port: closed },
      { host: '127.0.0.5', port: closed },
    ];
    const progress: [number, number][] = [];

    const result = await discoverTargets(targets, { timeoutMs: 2000, concurrency: 2, onProgress: (done, total) => progress.push([done, total]) });

    const expiry = leaf.cert.notAfter.toISOString().slice(0, 10);
    expect(Object.entries(result.details)).toEqual([
      ['127.0.0.2', ['SUCCESS', `Certificate found: CN=runner.test, expires ${expiry}`]],
      ['127.0.0.3', ['FAILURE', 'Not a TLS service']],
      ['127.0.0.4', ['FAILURE', 'Connection refused']],
      ['127.0.0.5', ['FAILURE', 'Connection refused']],
    ]);
    expect(progress).toEqual([[1, 4], [2, 4], [3, 4], [4, 4]]);
    expect(result.certificates).toHaveLength(1);
    expect(result.certificates[0]).toMatchObject({ key: '127.0.0.2', host: '127.0.0.2', port: live.port, chain: [leaf.der] });
  });

  it('keys a host listed with several ports by host:port', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const result = await discoverTargets(
      [
        { host: '127.0.0.1', port: a },
        { host: '127.0.0.1', port: b },
        { host: '::1', port: a },
        { host: '::1', port: b },
      ],
      { timeoutMs: 1000 },
    );
    expect(Object.keys(result.details)).toEqual([`127.0.0.1:${a}`, `127.0.0.1:${b}`, `[::1]:${a}`, `[::1]:${b}`]);
  });
});
