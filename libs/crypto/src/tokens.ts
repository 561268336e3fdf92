import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, hex: what API users put in AUTHTOKEN. */
export function newApiToken(): string {
  return randomBytes(32).toString('hex');
}

/** Tokens are looked up by SHA-256: a database leak yields no usable token. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

