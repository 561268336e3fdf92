import { isIP } from 'node:net';
import { COMMON_SUITES, exchangeHello, HandshakeMessage, HandshakeType, type ScanTarget, SSLV3_SUITES, Version, versionName } from '../discovery';

export interface LegacyChain {
  chain: Buffer[];
  remoteAddress: string;
  protocol: string;
}

/**
 * Node's TLS cannot finish a handshake with SSLv3-only or broken legacy servers, yet
 * their certificate travels in the clear in the server's first flight. This reads it
 * from a hand-built hello (TLS 1.2 offer first, then SSLv3), so such endpoints are
 * still inventoried and scanned. Null when no certificate could be read.
 */
export async function fetchLegacyChain(target: ScanTarget): Promise<LegacyChain | null> {
  const offers = [
    { recordVersion: Version.TLS10, clientVersion: Version.TLS12, suites: COMMON_SUITES, serverName: isIP(target.host) ? undefined : target.host },
    { recordVersion: Version.SSL3, clientVersion: Version.SSL3, suites: SSLV3_SUITES, extensions: false },
  ];
  for (const offer of offers) {
    try {
      const outcome = await exchangeHello(target, offer, true);
      if (outcome.kind === 'rejected') continue;
      const remoteAddress = outcome.connection.remoteAddress ?? target.host;
      outcome.connection.close();
      const chain = certificatesOf(outcome.messages);
      if (chain.length) return { chain, remoteAddress, protocol: versionName(outcome.serverHello.version) };
    } catch {
      // Timeouts and non-TLS replies: the normal discovery message already says why.
    }
  }
  return null;
}

/** The DER certificates of a TLS <= 1.2 Certificate message, leaf first. */
export function certificatesOf(messages: readonly HandshakeMessage[]): Buffer[] {
  const message = messages.find((m) => m.type === HandshakeType.Certificate);
  if (!message || message.body.length < 3) return [];
  const body = message.body;
  const end = Math.min(body.length, 3 + body.readUIntBE(0, 3));
  const chain: Buffer[] = [];
  for (let at = 3; at + 3 <= end && chain.length < 10; ) {
    const length = body.readUIntBE(at, 3);
    if (at + 3 + length > end) break;
    chain.push(Buffer.from(body.subarray(at + 3, at + 3 + length)));
    at += 3 + length;
  }
  return chain;
}
