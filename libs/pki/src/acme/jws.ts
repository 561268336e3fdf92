import { createHmac, KeyObject, timingSafeEqual, verify } from 'node:crypto';
import { AcmeProblem, malformed } from './problem';
import { Jwk } from './jwk';

/** A flattened JWS (RFC 7515 §7.2.2), the only serialisation ACME allows. */
export interface Jws {
  protected: Record<string, unknown>;
  /** The decoded payload: '' for POST-as-GET. */
  payloadText: string;
  signingInput: Buffer;
  signature: Buffer;
}

export const SUPPORTED_ALGORITHMS = ['RS256', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const EC_CURVE: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };
const HASH: Record<string, string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

export function parseJws(body: unknown): Jws {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw malformed('The request body must be a flattened JWS JSON object');
  const b = body as Record<string, unknown>;
  if ('signatures' in b || 'header' in b) throw malformed('Only the flattened JWS serialisation without an unprotected header is allowed');
  const { protected: p, payload, signature } = b;
  if (typeof p !== 'string' || typeof payload !== 'string' || typeof signature !== 'string') {
    throw malformed('The JWS needs protected, payload and signature strings');
  }
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  } catch {
    throw malformed('The JWS protected header is not base64url JSON');
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) throw malformed('The JWS protected header must be an object');
  return {
    protected: header as Record<string, unknown>,
    payloadText: Buffer.from(payload, 'base64url').toString('utf8'),
    signingInput: Buffer.from(`${p}.${payload}`, 'ascii'),
    signature: Buffer.from(signature, 'base64url'),
  };
}

/** Verifies an asymmetric JWS signature (RS256, ES256/384/512, EdDSA) with the account's key. */
export function verifyJws(jws: Jws, key: KeyObject): void {
  const alg = String(jws.protected.alg);
  if (!SUPPORTED_ALGORITHMS.includes(alg)) {
    throw new AcmeProblem('badSignatureAlgorithm', `Unsupported JWS algorithm ${alg}; use one of ${SUPPORTED_ALGORITHMS.join(', ')}`);
  }
  const type = key.asymmetricKeyType;
  const fits =
    (alg === 'RS256' && type === 'rsa') ||
    (alg === 'EdDSA' && type === 'ed25519') ||
    (alg in EC_CURVE && type === 'ec' && key.asymmetricKeyDetails?.namedCurve === EC_CURVE[alg]);
  if (!fits) throw new AcmeProblem('badSignatureAlgorithm', `JWS algorithm ${alg} does not fit the ${type} key`);
  const ok =
    alg === 'EdDSA'
      ? verify(null, jws.signingInput, key, jws.signature)
      : verify(HASH[alg], jws.signingInput, alg === 'RS256' ? key : { key, dsaEncoding: 'ieee-p1363' }, jws.signature);
  if (!ok) throw malformed('The JWS signature does not verify');
}

/** Verifies an HMAC JWS (External Account Binding: HS256/384/512). */
export function verifyHmacJws(jws: Jws, hmacKey: Buffer): void {
  const alg = String(jws.protected.alg);
  const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg];
  if (!hash) throw malformed(`The external account binding must use HS256, HS384 or HS512, not ${alg}`);
  const expected = createHmac(hash, hmacKey).update(jws.signingInput).digest();
  if (expected.length !== jws.signature.length || !timingSafeEqual(expected, jws.signature)) {
    throw unauthorizedEab();
  }
}

function unauthorizedEab(): AcmeProblem {
  return new AcmeProblem('unauthorized', 'The external account binding signature does not verify with that key');
}

/** The JSON payload of a JWS, or {} for an empty payload when allowed. */
export function jsonPayload(jws: Jws): Record<string, unknown> {
  if (jws.payloadText === '') throw malformed('This request needs a JSON payload, not POST-as-GET');
  let value: unknown;
  try {
    value = JSON.parse(jws.payloadText);
  } catch {
    throw malformed('The JWS payload is not JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw malformed('The JWS payload must be a JSON object');
  return value as Record<string, unknown>;
}

export function headerJwk(jws: Jws): Jwk | undefined {
  const jwk = jws.protected.jwk;
  return jwk && typeof jwk === 'object' && !Array.isArray(jwk) ? (jwk as Jwk) : undefined;
}
