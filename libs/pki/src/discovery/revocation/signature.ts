import { constants, createPublicKey, verify } from 'node:crypto';
import { RsaSaPssParams } from '@peculiar/asn1-rsa';
import { AsnConvert } from '@peculiar/asn1-schema';
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

const RSASSA_PSS = '1.2.840.113549.1.1.10';
const HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/**
 * Verifies an X.509-style signature (algorithm identifier + BIT STRING) over `data` with a
 * SubjectPublicKeyInfo. ECDSA signatures stay DER-encoded, as Node expects by default.
 * RSASSA-PSS takes its hash and salt length from the parameters (RFC 4055; MGF1 with the
 * same hash, the only form in use).
 */
export function verifySignature(algorithm: AlgorithmIdentifier, spki: ArrayBuffer, data: ArrayBuffer, signature: ArrayBuffer): boolean {
  const key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  if (algorithm.algorithm === RSASSA_PSS) {
    const params = algorithm.parameters ? AsnConvert.parse(algorithm.parameters, RsaSaPssParams) : new RsaSaPssParams();
    const digest = HASHES[params.hashAlgorithm.algorithm];
    if (!digest) throw new Error(`unsupported RSASSA-PSS hash ${params.hashAlgorithm.algorithm}`);
    return verify(
      digest,
      Buffer.from(data),
      { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: params.saltLength },
      Buffer.from(signature),
    );
  }
  const digest = DIGESTS[algorithm.algorithm];
  if (digest === undefined) throw new Error(`unsupported signature algorithm ${algorithm.algorithm}`);
  return verify(digest, Buffer.from(data), key, Buffer.from(signature));
}
