import * as tls from 'node:tls';
import { isIP } from 'node:net';
import { ConnectionFailure, timedOut } from '../errors';
import { RawTarget } from '../raw-connection';

export const TLS_PROTOCOLS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
export type TlsProtocol = (typeof TLS_PROTOCOLS)[number];
export type ProtocolSupport = Record<TlsProtocol | 'SSLv3', boolean>;

/** Whether a full handshake succeeds when only `version` is allowed. */
export function probeProtocol(target: RawTarget, version: TlsProtocol): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: target.host,
      port: target.port,
      servername: isIP(target.host) ? undefined : target.host,
      rejectUnauthorized: false,
      minVersion: version,
      maxVersion: version,
      // Level 0 is required for TLS 1.0/1.1 under OpenSSL 3; anonymous suites count too.
      ciphers: 'ALL:COMPLEMENTOFALL:@SECLEVEL=0',
      ...(target.lookup ? { lookup: target.lookup } : {}),
    });
    const timer = setTimeout(() => finish(timedOut(target.timeoutMs)), target.timeoutMs);
    let settled = false;
    function finish(error: Error | null, supported = false): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(supported);
    }
    socket.once('secureConnect', () => finish(null, true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') finish(new ConnectionFailure('refused', 'Connection refused'));
      else if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') finish(new ConnectionFailure('not-found', 'Host not found'));
      // Alerts, resets and unparseable replies all mean this version was not negotiated.
      else finish(null, false);
    });
    socket.once('close', () => finish(null, false));
  });
}
