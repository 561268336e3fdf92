import { createOpensslIdentity, Peer, startHeartbeatServer, startSslv3Server } from '../../../../test/support/tls-peers';
import { certificatesOf, fetchLegacyChain } from './legacy-chain';

describe('fetchLegacyChain', () => {
  const identity = createOpensslIdentity('legacy.unit.test');
  const peers: Peer[] = [];
  afterAll(async () => {
    await Promise.all(peers.map((peer) => peer.stop()));
    identity.cleanup();
  });

  it('reads the certificate from an SSLv3-only server', async () => {
    const peer = await startSslv3Server(identity.der);
    peers.push(peer);
    const chain = await fetchLegacyChain({ host: peer.host, port: peer.port, timeoutMs: 2000 });
    expect(chain).toEqual({ chain: [identity.der], remoteAddress: '127.0.0.1', protocol: 'SSLv3' });
  });

  it('reads the certificate from a server that only plays its first flight', async () => {
    const peer = await startHeartbeatServer(identity.der, false);
    peers.push(peer);
    expect((await fetchLegacyChain({ host: peer.host, port: peer.port, timeoutMs: 2000 }))?.protocol).toBe('TLSv1.2');
  });

  it('gives null when nothing answers', async () => {
    expect(await fetchLegacyChain({ host: '127.0.0.1', port: 1, timeoutMs: 500 })).toBeNull();
  });

  it('parses a Certificate message and ignores truncated entries', () => {
    const der = Buffer.from([1, 2, 3, 4]);
    const u24 = (n: number) => Buffer.from([n >> 16, (n >> 8) & 0xff, n & 0xff]);
    const body = Buffer.concat([u24(7 + 7), u24(4), der, u24(9), Buffer.from([5, 6, 7, 8])]);
    expect(certificatesOf([{ type: 11, body }])).toEqual([der]);
    expect(certificatesOf([{ type: 2, body }])).toEqual([]);
  });
});
