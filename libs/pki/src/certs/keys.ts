import { createPrivateKey, createPublicKey, generateKeyPair as generateKeyPairCb, KeyObject } from 'node:crypto';
import { EC_CURVES, KeySpec, SignatureAlgorithm, webCryptoSigning } from './algorithms';
import { CertificateError } from './errors';
import { CryptoKey, subtle } from './x509';
import { checkPkcs8Costs, encryptedPkcs8Der, withinLimits } from './derivation-limits';

export interface KeyPairPem {
  /** Unencrypted PKCS#8 PEM, the form the server stores (encrypted at rest by the caller). */
  privateKeyPem: string;
  /** SubjectPublicKeyInfo PEM. */
  publicKeyPem: string;
  spec: KeySpec;
}

export interface PublicKeyInfo {
  algorithm: string;
  /** Modulus bits for RSA, curve size for EC, 0 when unknown. */
  length: number;
}

export function generateKeyPair(spec: KeySpec): Promise<KeyPairPem> {
  const encoding = {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  } as const;
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, publicKeyPem: string, privateKeyPem: string) =>
      error ? reject(error) : resolve({ privateKeyPem, publicKeyPem, spec });
    if (spec.algorithm === 'RSA') {
      generateKeyPairCb('rsa', { modulusLength: spec.length, publicExponent: 0x10001, ...encoding }, done);
    } else {
      generateKeyPairCb('ec', { namedCurve: EC_CURVES[spec.length].openssl, ...encoding }, done);
    }
  });
}

/**
 * Reads a private key in any PEM/DER form node understands (PKCS#8, PKCS#1, SEC1,
 * encrypted PKCS#8 or legacy encrypted PEM). A wrong or missing password becomes a
 * WRONG_PASSWORD error instead of an OpenSSL message.
 */
export function loadPrivateKey(key: string | Buffer, password?: string): KeyObject {
  const text = Buffer.isBuffer(key) ? undefined : key;
  const encrypted = text !== undefined && /ENCRYPTED|Proc-Type: 4,ENCRYPTED/.test(text);
  if (encrypted && !password) {
    throw new CertificateError('WRONG_PASSWORD', 'The private key is encrypted; give its password.');
  }
  if (password) {
    const der = Buffer.isBuffer(key) ? key : encryptedPkcs8Der(key);
    if (der) withinLimits(() => checkPkcs8Costs(der));
  }
  try {
    if (Buffer.isBuffer(key)) {
      return createPrivateKey({ key, format: 'der', type: 'pkcs8', passphrase: password });
    }
    return createPrivateKey({ key, format: 'pem', passphrase: password ?? '' });
  } catch (error) {
    if (encrypted) throw new CertificateError('WRONG_PASSWORD', 'The private key password is wrong.');
    throw new CertificateError('INVALID_INPUT', 'The private key could not be read; expected a PEM or PKCS#8 DER key.');
  }
}

export function toPkcs8Pem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

export function toPkcs8Der(key: KeyObject): Buffer {
  return key.export({ type: 'pkcs8', format: 'der' });
}

/** Encrypted PKCS#8 (PBES2, AES-256-CBC) — readable by openssl and Java. */
export function encryptPrivateKeyPem(privateKeyPem: string, password: string): string {
  if (!password) throw new CertificateError('INVALID_INPUT', 'A password is needed to encrypt the private key.');
  return loadPrivateKey(privateKeyPem)
    .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: password })
    .toString();
}

/** Any private key PEM (encrypted or not) → unencrypted PKCS#8 PEM. */
export function decryptPrivateKeyPem(privateKeyPem: string, password?: string): string {
  return toPkcs8Pem(loadPrivateKey(privateKeyPem, password));
}

export function describePublicKey(key: KeyObject): PublicKeyInfo {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      return { algorithm: 'RSA', length: details.modulusLength ?? 0 };
    case 'ec':
      return { algorithm: 'EC', length: curveSize(details.namedCurve) };
    case 'dsa':
      return { algorithm: 'DSA', length: details.modulusLength ?? 0 };
    case 'ed25519':
      return { algorithm: 'Ed25519', length: 256 };
    case 'ed448':
      return { algorithm: 'Ed448', length: 456 };
    default:
      return { algorithm: String(key.asymmetricKeyType ?? 'unknown'), length: 0 };
  }
}

function curveSize(curve: string | undefined): number {
  for (const [size, names] of Object.entries(EC_CURVES)) {
    if (names.openssl === curve) return Number(size);
  }
  const digits = /(\d{3})/.exec(curve ?? '')?.[1];
  return digits ? Number(digits) : 0;
}

export function keySpecOf(key: KeyObject): KeySpec {
  const info = describePublicKey(key);
  if (info.algorithm !== 'RSA' && info.algorithm !== 'EC') {
    throw new CertificateError('UNSUPPORTED_ALGORITHM', `${info.algorithm} keys cannot sign certificates here; use RSA or EC.`);
  }
  return { algorithm: info.algorithm, length: info.length };
}

export function publicKeyMatches(privateKey: KeyObject, publicKey: KeyObject): boolean {
  const derived = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  return derived.equals(publicKey.export({ type: 'spki', format: 'der' }));
}

/** Imports a private key into WebCrypto for one signature algorithm (RSA keys carry their hash). */
export async function importSigningKey(key: KeyObject, sig: SignatureAlgorithm): Promise<CryptoKey> {
  const { name, hash } = webCryptoSigning(sig);
  const params =
    name === 'ECDSA'
      ? { name, namedCurve: EC_CURVES[describePublicKey(key).length]?.webCrypto }
      : { name, hash };
  return subtle.importKey('pkcs8', toPkcs8Der(key), params, false, ['sign']);
}
