import type { ConnectionOptions } from 'node:tls';
import { ConnectorError, ConnectorTarget, where } from './connector';

/**
 * Node TLS options for a target's mode: `verify` checks the chain (against CACERT when
 * given, else the system store) and the host name; `require` encrypts without checking
 * who answers. Undefined for `off`.
 */
export function tlsOptions(target: ConnectorTarget): ConnectionOptions | undefined {
  if (target.tls === 'off') return undefined;
  if (target.tls === 'require') return { rejectUnauthorized: false };
  const options: ConnectionOptions = { rejectUnauthorized: true, ...(target.caCert ? { ca: target.caCert } : {}) };
  // SNI takes names only; an address is still checked against the certificate's IP SANs.
  if (!/^[\d.]+$/.test(target.host) && !target.host.includes(':')) options.servername = target.host;
  return options;
}

/** Refuses a TLS mode the kind does not speak, before any connection. */
export function checkTlsMode(target: ConnectorTarget, modes: readonly string[]): void {
  if (!modes.includes(target.tls)) {
    throw new ConnectorError('invalid', `TLS mode ${target.tls} is not available for ${where(target)}; use one of ${modes.join(', ')}`);
  }
}
