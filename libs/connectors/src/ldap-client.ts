import { Client } from 'ldapts';
import { ConnectorTarget, DEFAULT_TIMEOUT_MS } from './connector';
import { tlsOptions } from './tls';

/**
 * A connection to a directory as the target says (LDAPS for `verify`, StartTLS upgraded and
 * checked like `verify` for `starttls`), not yet bound. Shared by the LDAP and Active
 * Directory connectors: both send passwords in binds, so neither has a mode without a
 * checked certificate.
 */
export async function openDirectory(target: ConnectorTarget): Promise<Client> {
  const timeout = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const tls = tlsOptions({ ...target, tls: target.tls === 'starttls' ? 'verify' : target.tls });
  const ldaps = target.tls === 'verify';
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  const client = new Client({ url: `${ldaps ? 'ldaps' : 'ldap'}://${host}:${target.port}`, connectTimeout: timeout, timeout, tlsOptions: ldaps ? tls : undefined, strictDN: false });
  try {
    if (target.tls === 'starttls') await client.startTLS({ ...tls, host: target.host });
    return client;
  } catch (error) {
    await client.unbind().catch(() => undefined);
    throw error;
  }
}
