import { sha256Fingerprint } from '../public-key-line';
import { RemoteHostError } from '../errors';
import type { SshTarget } from './target';

/** The key a server presented during the key exchange, before anything was sent to it. */
export interface PresentedHostKey {
  /** `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`, ... */
  type: string;
  /** As `ssh-keygen -lf` prints it: `SHA256:` and unpadded base64. */
  fingerprint: string;
}

/**
 * Where host keys are recorded and compared (ssh_host_keys). It resolves when the
 * connection may go on, and rejects with a RemoteHostError when it must not.
 */
export interface HostKeyPins {
  verify(target: SshTarget, presented: PresentedHostKey): Promise<void>;
}

let pins: HostKeyPins | null = null;

/** Installs the store every SSH connection is checked against (one per process). */
export function useHostKeyPins(store: HostKeyPins): void {
  pins = store;
}

/** Removes the store, if it is still the one installed (module shutdown, tests). */
export function dropHostKeyPins(store: HostKeyPins): void {
  if (pins === store) pins = null;
}

/** The host key blob as the SSH wire carries it: type, fingerprint. */
export function presentedHostKey(blob: Buffer): PresentedHostKey {
  const length = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const type = length > 0 && length <= 64 && blob.length >= 4 + length ? blob.subarray(4, 4 + length).toString('latin1') : 'unknown';
  return { type, fingerprint: sha256Fingerprint(blob.toString('base64')) };
}

/** Checks a presented key before authentication; without a store no connection is made at all. */
export async function checkHostKey(target: SshTarget, presented: PresentedHostKey): Promise<void> {
  if (!pins) {
    throw new RemoteHostError('host_key_rejected', 'SSH host keys cannot be checked (no host key store is configured); nothing was sent');
  }
  await pins.verify(target, presented);
}

const FINGERPRINT = /^SHA256:([A-Za-z0-9+/]{43})=?$/;

/** `SHA256:...` as ssh-keygen -lf prints it (trailing `=` tolerated), or null when the text is not one. */
export function normalizeHostKeyFingerprint(input: string): string | null {
  const match = FINGERPRINT.exec(input.trim());
  return match ? `SHA256:${match[1]}` : null;
}

/** Host names compare case-insensitively; IPv6 literals are stored without brackets. */
export function hostKeyHost(host: string): string {
  return host.trim().replace(/^\[(.*)\]$/, '$1').toLowerCase();
}
