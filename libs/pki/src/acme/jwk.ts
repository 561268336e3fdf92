import { createHash, createPublicKey, KeyObject } from 'node:crypto';
import { AcmeProblem } from './problem';

export type Jwk = Record<string, unknown>;

// RFC 7638: the members that define each key type, in lexicographic order.
const REQUIRED: Record<string, string[]> = {
  EC: ['crv', 'kty', 'x', 'y'],
  RSA: ['e', 'kty', 'n'],
  OKP: ['crv', 'kty', 'x'],
};

/** The public key a JWK describes; private members are refused (a client must never send them). */
export function keyFromJwk(jwk: unknown): KeyObject {
  if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk)) throw new AcmeProblem('badPublicKey', 'jwk must be a JSON object');
  const members = REQUIRED[String((jwk as Jwk).kty)];
  if (!members) throw new AcmeProblem('badPublicKey', `Unsupported key type ${String((jwk as Jwk).kty)}; use EC, RSA or OKP (Ed25519)`);
  if ('d' in (jwk as Jwk)) throw new AcmeProblem('badPublicKey', 'The jwk holds a private key');
  for (const m of members) {
    if (typeof (jwk as Jwk)[m] !== 'string') throw new AcmeProblem('badPublicKey', `jwk member ${m} is missing`);
  }
  try {
    const key = createPublicKey({ key: canonical(jwk as Jwk) as never, format: 'jwk' });
    if (key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
      throw new AcmeProblem('badPublicKey', 'RSA account keys must have at least 2048 bits');
    }
    return key;
  } catch (error) {
    if (error instanceof AcmeProblem) throw error;
    throw new AcmeProblem('badPublicKey', 'The jwk is not a valid public key');
  }
}

/** Only the defining members, in order: what thumbprints hash and what we store. */
export function canonical(jwk: Jwk): Jwk {
  const members = REQUIRED[String(jwk.kty)] ?? [];
  return Object.fromEntries(members.map((m) => [m, jwk[m]]));
}

/** RFC 7638 SHA-256 thumbprint, base64url. */
export function thumbprint(jwk: Jwk): string {
  return createHash('sha256').update(JSON.stringify(canonical(jwk))).digest('base64url');
}

/** RFC 8555 §8.1: token || '.' || base64url(thumbprint(accountKey)). */
export function keyAuthorization(token: string, jwk: Jwk): string {
  return `${token}.${thumbprint(jwk)}`;
}
