import { isIP, LookupFunction } from 'node:net';
import * as tls from 'node:tls';
import { classifySocketError, ConnectionFailure, timedOut } from './errors';

export interface FetchChainOptions {
  host: string;
  port: number;
  timeoutMs: number;
  /** Replaces DNS resolution (tests pin names to loopback; callers may enforce allow-lists). */
  lookup?: LookupFunction;
}

export interface FetchedChain {
  /** DER certificates as presented, leaf first. */
  chain: Buffer[];
  remoteAddress: string;
  protocol: string;
  cipher: string;
}

const MAX_CHAIN_LENGTH = 10;
// Discovery must see whatever the server presents, legacy protocols included, but an
// anonymous suite would hand back no certificate at all.
const DISCOVERY_CIPHERS = 'ALL:!aNULL:!eNULL:@SECLEVEL=0';

// OpenSSL reasons meaning the peer answered with something that is not a TLS record.
const NOT_TLS_CODES = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_HTTP_REQUEST',
  'ERR_SSL_UNKNOWN_PROTOCOL',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_RECORD_LENGTH_MISMATCH',
  'ERR_SSL_RECORD_LAYER_FAILURE',
]);

/** Connects with TLS (no verification: discovery reports what is there) and returns the chain. */
export function fetchCertificateChain({ host, port, timeoutMs, lookup }: FetchChainOptions): Promise<FetchedChain> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host,
      port,
      servername: isIP(host) ? undefined : host,
      rejectUnauthorized: false,
      minVersion: 'TLSv1',
      ciphers: DISCOVERY_CIPHERS,
      ...(lookup ? { lookup } : {}),
    });
    const timer = setTimeout(() => finish(timedOut(timeoutMs)), timeoutMs);
    let settled = false;
    function finish(error: Error | null, result?: FetchedChain): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(result!);
    }
    socket.once('secureConnect', () => {
      try {
        const chain = collectChain(socket.getPeerCertificate(true));
        if (!chain.length) throw new ConnectionFailure('handshake', 'TLS handshake failed: no certificate presented');
        finish(null, {
          chain,
          remoteAddress: socket.remoteAddress ?? host,
          protocol: socket.getProtocol() ?? 'unknown',
          cipher: socket.getCipher().name,
        });
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => finish(classifyTlsError(error)));
    socket.once('close', () => finish(new ConnectionFailure('closed', 'TLS handshake failed: connection closed by peer')));
  });
}

function collectChain(leaf: tls.DetailedPeerCertificate): Buffer[] {
  const chain: Buffer[] = [];
  const seen = new Set<string>();
  let current: tls.DetailedPeerCertificate | undefined = leaf;
  while (current?.raw && chain.length < MAX_CHAIN_LENGTH) {
    const fingerprint = current.fingerprint256;
    if (seen.has(fingerprint)) break;
    seen.add(fingerprint);
    chain.push(Buffer.from(current.raw));
    // Node links a self-signed root to itself; the seen-set stops that loop.
    current = current.issuerCertificate;
  }
  return chain;
}

function classifyTlsError(error: NodeJS.ErrnoException): ConnectionFailure {
  if (error.code && NOT_TLS_CODES.has(error.code)) return new ConnectionFailure('not-tls', 'Not a TLS service');
  if (error.code?.startsWith('ERR_SSL_')) {
    return new ConnectionFailure('handshake', `TLS handshake failed: ${tlsReason(error)}`);
  }
  if (error.code === 'ECONNRESET') {
    return new ConnectionFailure('closed', 'TLS handshake failed: connection reset by peer');
  }
  if (/before secure TLS connection/.test(error.message)) {
    return new ConnectionFailure('closed', 'TLS handshake failed: connection closed by peer');
  }
  return classifySocketError(error);
}

function tlsReason(error: NodeJS.ErrnoException & { reason?: string }): string {
  return error.reason ?? error.message.replace(/^.*routines:/, '').replace(/:.*$/, '');
}
