import { createHmac, hkdfSync } from 'node:crypto';

// Fingerprint layout: [key version 4][HMAC-SHA256 32] of [subject 8][secret]. Equal
// secrets of one subject (an account) under one data key and context have equal
// fingerprints, so "is this one of the account's last N passwords?" is a byte comparison in
// SQL instead of opening N sealed values in the server. The subject is in the MAC, so two
// accounts with the same password do not show it; without the data key a fingerprint is as
// useless to a reader of the database as the sealed value.
export const FINGERPRINT_LENGTH = 4 + 32;

/** The HMAC key of a context, derived from a data key (HKDF), never the data key itself. */
export function fingerprintKey(dataKey: Buffer, context: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), `fingerprint:${context}`, 32));
}

export function fingerprint(fingerprintKey: Buffer, version: number, subject: number, plaintext: Buffer): Buffer {
  if (!Number.isSafeInteger(subject) || subject < 0) throw new Error('A fingerprint subject is a non-negative integer id');
  const head = Buffer.alloc(8);
  head.writeBigUInt64BE(BigInt(subject));
  const out = Buffer.allocUnsafe(FINGERPRINT_LENGTH);
  out.writeUInt32BE(version, 0);
  createHmac('sha256', fingerprintKey).update(head).update(plaintext).digest().copy(out, 4);
  return out;
}
