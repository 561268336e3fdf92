import { createHash, randomBytes } from 'node:crypto';
import { childElements, DER_NULL, objectIdentifier, octetString, readElement, sequence } from './der-writer';
import { CertificateError } from './errors';
import { loadPrivateKey, toPkcs8Der, toPkcs8Pem } from './keys';
import { readCertificateDers } from './parse';
import { toPem } from './pem';

// Java KeyStore (JKS) as written by sun.security.provider.JavaKeyStore:
//   u32 0xFEEDFEED, u32 version 2, u32 entry count, entries, SHA-1 integrity digest.
// Private keys are protected with Sun's proprietary KeyProtector (SHA-1 keystream XOR).

const MAGIC = 0xfeedfeed;
const VERSION = 2;
const PRIVATE_KEY_TAG = 1;
const TRUSTED_CERT_TAG = 2;
const KEY_PROTECTOR_OID = '1.3.6.1.4.1.42.2.17.1.1';
const DIGEST_WHITENER = Buffer.from('Mighty Aphrodite', 'utf8');

export type JksEntry =
  | { alias: string; privateKeyPem: string; certPems: string[]; date?: Date }
  | { alias: string; certPem: string; date?: Date };

export interface JksReadEntry {
  alias: string;
  date: Date;
  /** Unencrypted PKCS#8 PEM for key entries. */
  privateKeyPem?: string;
  /** The key's chain (leaf first), or the single trusted certificate. */
  certPems: string[];
}

/** Java passwords are char arrays; JKS feeds each UTF-16 code unit big-endian to SHA-1. */
function passwordBytes(password: string): Buffer {
  return Buffer.from(password, 'utf16le').swap16();
}

function keystream(password: Buffer, salt: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  let digest = salt;
  for (let offset = 0; offset < length; offset += 20) {
    digest = createHash('sha1').update(password).update(digest).digest();
    digest.copy(out, offset, 0, Math.min(20, length - offset));
  }
  return out;
}

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i];
  return out;
}

/** KeyProtector.protect: EncryptedPrivateKeyInfo of salt || (key XOR stream) || SHA-1(password || key). */
export function protectKey(pkcs8: Buffer, password: string): Buffer {
  const pw = passwordBytes(password);
  const salt = randomBytes(20);
  const check = createHash('sha1').update(pw).update(pkcs8).digest();
  const protectedKey = Buffer.concat([salt, xor(pkcs8, keystream(pw, salt, pkcs8.length)), check]);
  return sequence(sequence(objectIdentifier(KEY_PROTECTOR_OID), DER_NULL), octetString(protectedKey));
}

export function recoverKey(encryptedKeyInfo: Buffer, password: string): Buffer {
  const [algorithm, data] = childElements(encryptedKeyInfo, readElement(encryptedKeyInfo));
  const [oidElement] = childElements(encryptedKeyInfo, algorithm);
  if (!encryptedKeyInfo.subarray(oidElement.start, oidElement.end).equals(objectIdentifier(KEY_PROTECTOR_OID))) {
    throw new CertificateError('UNSUPPORTED_ALGORITHM', 'The JKS key is not protected with the Sun JKS algorithm.');
  }
  const blob = encryptedKeyInfo.subarray(data.contentStart, data.end);
  const salt = blob.subarray(0, 20);
  const encrypted = blob.subarray(20, blob.length - 20);
  const pw = passwordBytes(password);
  const key = xor(encrypted, keystream(pw, salt, encrypted.length));
  const check = createHash('sha1').update(pw).update(key).digest();
  if (!check.equals(blob.subarray(blob.length - 20))) {
    throw new CertificateError('WRONG_PASSWORD', 'The JKS key password is wrong.');
  }
  return key;
}

class Writer {
  private readonly parts: Buffer[] = [];

  u32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(value >>> 0);
    this.parts.push(b);
  }

  u64(value: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(value));
    this.parts.push(b);
  }

  // DataOutputStream.writeUTF; aliases and "X.509" are plain text, so UTF-8 matches it.
  utf(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    const len = Buffer.alloc(2);
    len.writeUInt16BE(bytes.length);
    this.parts.push(len, bytes);
  }

  bytes(data: Buffer): void {
    this.u32(data.length);
    this.parts.push(data);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export function writeJks(entries: JksEntry[], storePassword: string, keyPassword: string = storePassword): Buffer {
  if (!storePassword) throw new CertificateError('INVALID_INPUT', 'A password is required to create a JKS keystore.');
  const w = new Writer();
  w.u32(MAGIC);
  w.u32(VERSION);
  w.u32(entries.length);
  for (const entry of entries) {
    const date = (entry.date ?? new Date()).getTime();
    // JKS aliases are case-insensitive and stored lowercased, as keytool does.
    const alias = entry.alias.toLowerCase();
    if ('privateKeyPem' in entry) {
      w.u32(PRIVATE_KEY_TAG);
      w.utf(alias);
      w.u64(date);
      w.bytes(protectKey(toPkcs8Der(loadPrivateKey(entry.privateKeyPem)), keyPassword));
      const chain = entry.certPems.flatMap((p) => readCertificateDers(p));
      w.u32(chain.length);
      for (const der of chain) {
        w.utf('X.509');
        w.bytes(der);
      }
    } else {
      w.u32(TRUSTED_CERT_TAG);
      w.utf(alias);
      w.u64(date);
      w.utf('X.509');
      w.bytes(readCertificateDers(entry.certPem)[0]);
    }
  }
  const body = w.toBuffer();
  const digest = createHash('sha1').update(passwordBytes(storePassword)).update(DIGEST_WHITENER).update(body).digest();
  return Buffer.concat([body, digest]);
}

class Reader {
  private offset = 0;

  constructor(private readonly data: Buffer) {}

  private take(n: number): Buffer {
    if (this.offset + n > this.data.length) throw new CertificateError('INVALID_INPUT', 'The JKS file is truncated.');
    const out = this.data.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  u32(): number {
    return this.take(4).readUInt32BE();
  }

  u64(): number {
    return Number(this.take(8).readBigUInt64BE());
  }

  utf(): string {
    return this.take(this.take(2).readUInt16BE()).toString('utf8');
  }

  bytes(): Buffer {
    return this.take(this.u32());
  }
}

export function isJks(data: Buffer): boolean {
  return data.length >= 4 && data.readUInt32BE(0) === MAGIC;
}

/** Reads a JKS keystore; the key password defaults to the store password (keytool's default). */
export function readJks(data: Buffer, storePassword: string, keyPassword: string = storePassword): JksReadEntry[] {
  if (!isJks(data)) {
    throw new CertificateError('INVALID_INPUT', 'The file is not a JKS keystore (JCEKS and PKCS#12 stores are read separately).');
  }
  if (data.length < 32) throw new CertificateError('INVALID_INPUT', 'The JKS file is truncated.');
  const body = data.subarray(0, data.length - 20);
  const expected = createHash('sha1').update(passwordBytes(storePassword)).update(DIGEST_WHITENER).update(body).digest();
  if (!expected.equals(data.subarray(data.length - 20))) {
    throw new CertificateError('WRONG_PASSWORD', 'The JKS keystore password is wrong (or the file was altered).');
  }
  const r = new Reader(body);
  r.u32();
  const version = r.u32();
  if (version !== 1 && version !== 2) throw new CertificateError('INVALID_INPUT', `JKS version ${version} is not supported.`);
  const count = r.u32();
  const entries: JksReadEntry[] = [];
  for (let i = 0; i < count; i++) {
    const tag = r.u32();
    const alias = r.utf();
    const date = new Date(r.u64());
    const certificate = () => {
      if (version === 2) r.utf();
      return toPem(r.bytes(), 'CERTIFICATE');
    };
    if (tag === PRIVATE_KEY_TAG) {
      const key = recoverKey(r.bytes(), keyPassword);
      const chainLength = r.u32();
      const certPems = Array.from({ length: chainLength }, certificate);
      entries.push({ alias, date, privateKeyPem: toPkcs8Pem(loadPrivateKey(key)), certPems });
    } else if (tag === TRUSTED_CERT_TAG) {
      entries.push({ alias, date, certPems: [certificate()] });
    } else {
      throw new CertificateError('INVALID_INPUT', `The JKS file has an unknown entry type ${tag}.`);
    }
  }
  return entries;
}
