import type { Actor } from '@app/audit';

/** How to reach and log in to a remote host. */
export interface SshTarget {
  host: string;
  port: number;
  /** The organisation whose recorded host keys (ssh_host_keys) this connection is checked against. */
  orgId: number;
  /** `SHA256:...` the operator gave up front; without it the first key seen is recorded (trust on first use). */
  expectedHostKey?: string;
  /** Who connects, named in the audit row of a refused host key; null or absent for the server itself. */
  actor?: Actor | null;
  username: string;
  password?: string;
  /** OpenSSH or PEM private key text. */
  privateKey?: string | Buffer;
  passphrase?: string;
  /** Connect + handshake + authentication deadline; default 10 s. */
  timeoutMs?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** `host:port`, with brackets around IPv6 literals; the only way hosts appear in messages. */
export function hostLabel(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
