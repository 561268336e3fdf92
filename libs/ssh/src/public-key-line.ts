import { createHash } from 'node:crypto';
import { SshKeyError } from './errors';

/** One OpenSSH public key: `algorithm base64-blob [comment]`. */
export interface SshPublicKey {
  /** Algorithm name from the line, e.g. `ssh-ed25519`, `ecdsa-sha2-nistp256`. */
  algorithm: string;
  /** The key blob, base64 as written in the line. */
  blob: string;
  comment: string;
}

const ALGORITHM = /^(ssh-[a-z0-9-]+|ecdsa-sha2-[a-z0-9-]+|sk-[a-z0-9@.-]+|[a-z0-9-]+-cert-v01@openssh\.com)$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function looksLikeKeyAlgorithm(token: string): boolean {
  return ALGORITHM.test(token);
}

/**
 * True when `blob` is base64 of an SSH wire-format key whose leading name string equals
 * `algorithm`; this is what makes a line safe to write to a remote file.
 */
export function isKeyBlob(algorithm: string, blob: string): boolean {
  if (!BASE64.test(blob) || blob.length % 4 !== 0) return false;
  const bytes = Buffer.from(blob, 'base64');
  if (bytes.length < 4) return false;
  const nameLength = bytes.readUInt32BE(0);
  if (nameLength === 0 || 4 + nameLength > bytes.length) return false;
  return bytes.subarray(4, 4 + nameLength).toString('latin1') === algorithm;
}

/** Parses a single public key line (no authorized_keys options). */
export function parsePublicKeyLine(line: string): SshPublicKey {
  const trimmed = line.trim();
  if (/[\r\n\0]/.test(trimmed)) throw invalidPublicKey();
  const match = /^(\S+)\s+(\S+)(?:\s+(.*))?$/.exec(trimmed);
  if (!match || !looksLikeKeyAlgorithm(match[1]) || !isKeyBlob(match[1], match[2])) throw invalidPublicKey();
  return { algorithm: match[1], blob: match[2], comment: (match[3] ?? '').trim() };
}

export function formatPublicKeyLine(key: SshPublicKey): string {
  return key.comment ? `${key.algorithm} ${key.blob} ${key.comment}` : `${key.algorithm} ${key.blob}`;
}

/** `SHA256:<base64 without padding>`, exactly as `ssh-keygen -lf` prints it. */
export function sha256Fingerprint(blobBase64: string): string {
  const digest = createHash('sha256').update(Buffer.from(blobBase64, 'base64')).digest('base64');
  return `SHA256:${digest.replace(/=+$/, '')}`;
}

function invalidPublicKey(): SshKeyError {
  return new SshKeyError('invalid_public_key', 'The text is not a valid OpenSSH public key line');
}
