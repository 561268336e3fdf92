import { Inject, Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { request } from 'node:http';
import { connect } from 'node:tls';
import { APP_CONFIG, AppConfig } from '@app/config';
import { ACME_TLS_ALPN, AcmeProblem, alpnServerName, checkAlpnCertificate, Identifier } from '../acme';

/** The whole validation (resolve, connect, handshake, answer) ends within this, whatever the peer does. */
export const VALIDATION_DEADLINE_MS = 10_000;
const MAX_BODY = 8192;

export const CHALLENGE_TYPES = ['http-01', 'tls-alpn-01'] as const;
export type ChallengeType = (typeof CHALLENGE_TYPES)[number];

/**
 * Validates http-01 (RFC 8555 §8.3) and tls-alpn-01 (RFC 8737) by connecting to the
 * named host on ACME_HTTP01_PORT / ACME_TLSALPN01_PORT (80 / 443 by default).
 */
@Injectable()
export class ChallengeValidator {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * One wall-clock deadline for the whole validation: idle timeouts alone let a peer that
   * drips a byte now and then keep the client's request (and a socket) open for ever.
   */
  async validate(type: ChallengeType, id: Identifier, token: string, keyAuthorization: string): Promise<void> {
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        deadline.abort();
        reject(new AcmeProblem('connection', `${type}: ${id.value} did not complete the validation within ${VALIDATION_DEADLINE_MS / 1000} s`, 400, id));
      }, VALIDATION_DEADLINE_MS);
    });
    const work = (async () => {
      const address = await resolve(id);
      deadline.signal.throwIfAborted();
      if (type === 'http-01') await this.http01(address, id, token, keyAuthorization, deadline.signal);
      else await this.tlsAlpn01(address, id, keyAuthorization, deadline.signal);
    })();
    work.catch(() => undefined);
    try {
      await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
      // Whatever is still open to the peer is closed now.
      deadline.abort();
    }
  }

  private http01(address: string, id: Identifier, token: string, keyAuthorization: string, signal: AbortSignal): Promise<void> {
    const port = this.config.acmeHttp01Port;
    const host = id.type === 'ip' && id.value.includes(':') ? `[${id.value}]` : id.value;
    return new Promise((resolvePromise, reject) => {
      const req = request(
        {
          host: address,
          port,
          path: `/.well-known/acme-challenge/${token}`,
          headers: { Host: port === 80 ? host : `${host}:${port}`, Connection: 'close' },
          // One connection per validation: no keep-alive socket left open to a client's host.
          agent: false,
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= MAX_BODY) chunks.push(c);
            else {
              reject(new AcmeProblem('incorrectResponse', `http-01: ${id.value} served more than ${MAX_BODY} bytes for the challenge`, 403, id));
              req.destroy();
            }
          });
          res.on('end', () => {
            if (res.statusCode !== 200) {
              reject(new AcmeProblem('unauthorized', `http-01: ${id.value} answered HTTP ${res.statusCode} for the challenge`, 403, id));
              return;
            }
            const body = Buffer.concat(chunks).toString('utf8').trim();
            if (body !== keyAuthorization) reject(new AcmeProblem('incorrectResponse', `http-01: ${id.value} served a different key authorization`, 403, id));
            else resolvePromise();
          });
          res.on('error', (e) => reject(connection(id, 'http-01', e)));
        },
      );
      req.on('error', (e) => reject(connection(id, 'http-01', e)));
      req.end();
    });
  }

  private tlsAlpn01(address: string, id: Identifier, keyAuthorization: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolvePromise, reject) => {
      const socket = connect({
        host: address,
        port: this.config.acmeTlsAlpn01Port,
        servername: alpnServerName(id),
        ALPNProtocols: [ACME_TLS_ALPN],
        // The challenge certificate is self-signed by design; what it holds is checked below.
        rejectUnauthorized: false,
      });
      signal.addEventListener('abort', () => socket.destroy(new Error('timed out')), { once: true });
      socket.once('secureConnect', () => {
        try {
          if (socket.alpnProtocol !== ACME_TLS_ALPN) {
            throw new AcmeProblem('tls', `tls-alpn-01: ${id.value} did not negotiate the acme-tls/1 protocol`, 403, id);
          }
          const cert = socket.getPeerX509Certificate();
          if (!cert) throw new AcmeProblem('tls', `tls-alpn-01: ${id.value} sent no certificate`, 403, id);
          checkAlpnCertificate(cert.raw, id, keyAuthorization);
          resolvePromise();
        } catch (error) {
          reject(error);
        } finally {
          socket.destroy();
        }
      });
      socket.on('error', (e) => reject(connection(id, 'tls-alpn-01', e)));
    });
  }
}

/**
 * Where to connect: an IP identifier is the address; `localhost` and names under
 * `.localhost` are loopback (RFC 6761 §6.3); any other name goes to the system resolver.
 */
async function resolve(id: Identifier): Promise<string> {
  if (id.type === 'ip') return id.value;
  if (id.value === 'localhost' || id.value.endsWith('.localhost')) return '127.0.0.1';
  try {
    return (await lookup(id.value)).address;
  } catch {
    throw new AcmeProblem('dns', `${id.value} could not be resolved`, 400, id);
  }
}

function connection(id: Identifier, type: string, error: Error): AcmeProblem {
  return new AcmeProblem('connection', `${type}: could not connect to ${id.value}: ${error.message}`, 400, id);
}
