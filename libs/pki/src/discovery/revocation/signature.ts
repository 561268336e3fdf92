import { createPublicKey, verify } from 'node:crypto';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';

// Digest per signature algorithm OID; null means the scheme hashes internally (EdDSA).
const DIGESTS: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.14': 'sha224',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.1': 'sha224',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
  '1.3.101.113': null,
};

/**
 * Verifies an X.509-style signature (algorithm identifier + BIT STRING) over `data` with a
 * SubjectPublicKeyInfo. ECDSA signatures stay DER-encoded, as Node expects by default.
 */
export function verifySignature(algorithm: AlgorithmIdentifier, spki: ArrayBuffer, data: ArrayBuffer, signature: ArrayBuffer): boolean {
  const digest = DIGESTS[algorithm.algorithm];
  if (digest === undefined) throw new Error(`unsupported signature algorithm ${algorithm.algorithm}`);
  const key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  return verify(digest, Buffer.from(data), key, Buffer.from(signature));
}
