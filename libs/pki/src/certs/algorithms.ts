import { CertificateError } from './errors';

export type KeyAlgorithm = 'RSA' | 'EC';

export interface KeySpec {
  algorithm: KeyAlgorithm;
  /** RSA modulus bits, or the EC curve size (256, 384, 521). */
  length: number;
}

export type HashName = 'SHA-256' | 'SHA-384' | 'SHA-512';

export type SignatureAlgorithm =
  | 'SHA256withRSA'
  | 'SHA384withRSA'
  | 'SHA512withRSA'
  | 'SHA256withECDSA'
  | 'SHA384withECDSA'
  | 'SHA512withECDSA';

export const RSA_KEY_LENGTHS = [1024, 2048, 3072, 4096] as const;
export const EC_KEY_LENGTHS = [256, 384, 521] as const;

export const EC_CURVES: Record<number, { webCrypto: string; openssl: string }> = {
  256: { webCrypto: 'P-256', openssl: 'prime256v1' },
  384: { webCrypto: 'P-384', openssl: 'secp384r1' },
  521: { webCrypto: 'P-521', openssl: 'secp521r1' },
};

/** Names for the signature OIDs seen on real certificates, in the Java style clients expect. */
export const SIGNATURE_ALGORITHM_NAMES: Record<string, string> = {
  '1.2.840.113549.1.1.4': 'MD5withRSA',
  '1.2.840.113549.1.1.5': 'SHA1withRSA',
  '1.2.840.113549.1.1.14': 'SHA224withRSA',
  '1.2.840.113549.1.1.11': 'SHA256withRSA',
  '1.2.840.113549.1.1.12': 'SHA384withRSA',
  '1.2.840.113549.1.1.13': 'SHA512withRSA',
  '1.2.840.113549.1.1.10': 'RSASSA-PSS',
  '1.2.840.10045.4.1': 'SHA1withECDSA',
  '1.2.840.10045.4.3.1': 'SHA224withECDSA',
  '1.2.840.10045.4.3.2': 'SHA256withECDSA',
  '1.2.840.10045.4.3.3': 'SHA384withECDSA',
  '1.2.840.10045.4.3.4': 'SHA512withECDSA',
  '1.2.840.10040.4.3': 'SHA1withDSA',
  '2.16.840.1.101.3.4.3.2': 'SHA256withDSA',
  '1.3.101.112': 'Ed25519',
  '1.3.101.113': 'Ed448',
};

export function signatureAlgorithmName(oid: string): string {
  return SIGNATURE_ALGORITHM_NAMES[oid] ?? oid;
}

export function resolveKeySpec(algorithm: string | undefined, length: number | string | undefined): KeySpec {
  const alg = normaliseKeyAlgorithm(algorithm ?? 'RSA');
  const bits = length === undefined || length === '' ? defaultLength(alg) : Number(length);
  if (!Number.isInteger(bits)) {
    throw new CertificateError('INVALID_INPUT', `Key length "${length}" is not a whole number of bits.`);
  }
  if (alg === 'RSA' && !(RSA_KEY_LENGTHS as readonly number[]).includes(bits)) {
    throw new CertificateError(
      'UNSUPPORTED_ALGORITHM',
      `RSA key length ${bits} is not supported; use one of ${RSA_KEY_LENGTHS.join(', ')}.`,
    );
  }
  if (alg === 'EC' && !(EC_KEY_LENGTHS as readonly number[]).includes(bits)) {
    throw new CertificateError(
      'UNSUPPORTED_ALGORITHM',
      `EC key length ${bits} is not supported; use one of ${EC_KEY_LENGTHS.join(', ')} (curves P-256, P-384, P-521).`,
    );
  }
  return { algorithm: alg, length: bits };
}

function normaliseKeyAlgorithm(value: string): KeyAlgorithm {
  const v = value.trim().toUpperCase();
  if (v === 'RSA') return 'RSA';
  if (v === 'EC' || v === 'ECC' || v === 'ECDSA') return 'EC';
  throw new CertificateError('UNSUPPORTED_ALGORITHM', `Key algorithm "${value}" is not supported; use RSA or EC.`);
}

function defaultLength(alg: KeyAlgorithm): number {
  return alg === 'RSA' ? 2048 : 256;
}

/** Picks a hash that matches the key strength when the caller does not choose one. */
export function defaultSignatureAlgorithm(spec: KeySpec): SignatureAlgorithm {
  if (spec.algorithm === 'RSA') return 'SHA256withRSA';
  if (spec.length === 384) return 'SHA384withECDSA';
  if (spec.length === 521) return 'SHA512withECDSA';
  return 'SHA256withECDSA';
}

/**
 * Accepts the spellings clients send (SHA256withRSA, sha256WithRSAEncryption,
 * ecdsa-with-SHA384, SHA256withECDSA) and refuses a family that does not fit the key.
 */
export function resolveSignatureAlgorithm(value: string | undefined, spec: KeySpec): SignatureAlgorithm {
  if (value === undefined || value.trim() === '') return defaultSignatureAlgorithm(spec);
  const v = value.toUpperCase().replace(/[^A-Z0-9]/g, '');
  const hash = /SHA(256|384|512)/.exec(v)?.[1];
  const family = v.includes('ECDSA') ? 'ECDSA' : v.includes('RSA') ? 'RSA' : undefined;
  if (!hash || !family) {
    throw new CertificateError(
      'UNSUPPORTED_ALGORITHM',
      `Signature algorithm "${value}" is not supported; use SHA256, SHA384 or SHA512 with RSA or ECDSA (e.g. SHA256withRSA).`,
    );
  }
  const expected = spec.algorithm === 'RSA' ? 'RSA' : 'ECDSA';
  if (family !== expected) {
    throw new CertificateError(
      'UNSUPPORTED_ALGORITHM',
      `Signature algorithm "${value}" needs an ${family === 'RSA' ? 'RSA' : 'EC'} key, but the key is ${spec.algorithm}; use SHA${hash}with${expected}.`,
    );
  }
  return `SHA${hash}with${family}` as SignatureAlgorithm;
}

export function hashOf(sig: SignatureAlgorithm): HashName {
  return `SHA-${sig.slice(3, 6)}` as HashName;
}

/** WebCrypto parameters for signing (the hash goes on the algorithm for ECDSA, on the key for RSA). */
export function webCryptoSigning(sig: SignatureAlgorithm): { name: string; hash: HashName } {
  return { name: sig.endsWith('ECDSA') ? 'ECDSA' : 'RSASSA-PKCS1-v1_5', hash: hashOf(sig) };
}
