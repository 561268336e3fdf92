// Range discovery over a /24-sized loopback range: ~250 closed ports plus a few live TLS
// servers on their own 127.0.0.x addresses (all of 127/8 is loopback on Linux). Target: < 10 s.
// Run: `npx tsc bench/discovery.ts --outDir dist/bench-discovery --target es2022 --module commonjs
//       --esModuleInterop --skipLibCheck && node dist/bench-discovery/bench/discovery.js`
import { expandIpv4Range } from '../libs/net/src';
import { discoverTargets } from '../libs/pki/src/discovery';
import { createCa, issueCertificate, Peer, startNodeTlsServer } from '../test/support/tls-peers';
import { freePort } from '../test/support/free-port';

const LIVE_ADDRESSES = ['127.0.0.10', '127.0.0.100', '127.0.0.200', '127.0.0.254'];

export async function main(): Promise<void> {
  const ca = await createCa();
  const leaf = await issueCertificate(ca, { subject: 'CN=bench.test', serialNumber: '99' });
  // One port for the whole range, as the API's single PORT field implies.
  const port = await freePort(LIVE_ADDRESSES[0]);
  const live: Peer[] = [];
  try {
    for (const host of LIVE_ADDRESSES) {
      live.push(await startNodeTlsServer({ host, port, keyPem: leaf.keyPem, chainPem: [leaf.certPem, ca.certPem], minVersion: 'TLSv1.2' }));
    }
    const targets = expandIpv4Range('127.0.0.1', '127.0.0.254').map((host) => ({ host, port }));
    const started = process.hrtime.bigint();
    const { details } = await discoverTargets(targets, { timeoutMs: 5000, concurrency: 64 });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const entries = Object.values(details);
    const found = entries.filter(([status]) => status === 'SUCCESS').length;
    console.log(`targets=${targets.length} found=${found} failed=${entries.length - found} seconds=${seconds.toFixed(3)}`);
    if (found !== LIVE_ADDRESSES.length) throw new Error(`expected ${LIVE_ADDRESSES.length} certificates, found ${found}`);
  } finally {
    await Promise.all(live.map((peer) => peer.stop()));
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
