import { isIP } from 'node:net';
import { cipherSuiteName, WEAK_SUITES } from '../cipher-suites';
import { RawTarget } from '../raw-connection';
import { Version } from '../tls-wire';
import { exchangeHello } from './hello-exchange';

/**
 * Offers only weak suites and lets the server pick; each picked suite is removed and the
 * offer repeated, so the result lists every weak suite the server accepts (by IANA name).
 * TLS 1.2 client_version lets a server settle on 1.0, 1.1 or 1.2, whichever it speaks.
 */
export async function probeWeakCiphers(target: RawTarget): Promise<string[]> {
  const remaining = new Set(WEAK_SUITES);
  const accepted: string[] = [];
  while (remaining.size) {
    const outcome = await exchangeHello(target, {
      recordVersion: Version.TLS10,
      clientVersion: Version.TLS12,
      suites: [...remaining],
      serverName: isIP(target.host) ? undefined : target.host,
    });
    if (outcome.kind === 'rejected') break;
    outcome.connection.close();
    const chosen = outcome.serverHello.cipherSuite;
    // A server answering with a suite we did not offer is broken; stop rather than loop.
    if (!remaining.delete(chosen)) break;
    accepted.push(cipherSuiteName(chosen));
  }
  return accepted;
}
