import * as forge from 'node-forge';

/**
 * Upper bounds on the key-derivation work an uploaded file (a key store, a PKCS#8 or OpenSSH
 * key) may ask for: here, below both the certificate manager and SSH, which both read such files. Real tools write
 * far less: OpenSSL 3 uses 2,048 PBKDF2/MAC iterations, keytool 10,000, Windows 2,000;
 * ssh-keygen 16 bcrypt rounds (`-a 100` is a common hardening). The counts are read from
 * the file's structure and checked before any derivation starts.
 */
export const MAX_PBKDF_ITERATIONS = 1_000_000;
export const MAX_BCRYPT_ROUNDS = 1_000;
/** scrypt's cost N (OpenSSL's PKCS#8 `-scrypt` default is 16,384). */
export const MAX_SCRYPT_COST = 1_048_576;

const PKCS12_PBE_PREFIX = '1.2.840.113549.1.12.1.';
const PBES2 = '1.2.840.113549.1.5.13';
const PBKDF2 = '1.2.840.113549.1.5.12';
const SCRYPT = '1.3.6.1.4.1.11591.4.11';
/** Nesting is shallow in real files; a deeper tree is not a key file. */
const MAX_DEPTH = 24;

export class DerivationLimitError extends Error {}

type Asn1 = forge.asn1.Asn1;

function integerOf(node: Asn1 | undefined): number | undefined {
  if (!node || node.type !== forge.asn1.Type.INTEGER || typeof node.value !== 'string') return undefined;
  const bytes = Buffer.from(node.value, 'binary');
  if (bytes.length > 6) return Number.MAX_SAFE_INTEGER;
  return bytes.length === 0 ? 0 : bytes.readUIntBE(0, bytes.length);
}

function oidOf(node: Asn1 | undefined): string | undefined {
  if (!node || node.type !== forge.asn1.Type.OID || typeof node.value !== 'string') return undefined;
  return forge.asn1.derToOid(forge.util.createBuffer(node.value));
}

function children(node: Asn1): Asn1[] {
  return Array.isArray(node.value) ? (node.value as Asn1[]) : [];
}

function check(what: string, count: number | undefined, limit: number, unit: string): void {
  if (count !== undefined && count > limit) {
    throw new DerivationLimitError(`${what} uses ${count.toLocaleString('en-US')} ${unit}; the limit is ${limit.toLocaleString('en-US')}`);
  }
}

/** An AlgorithmIdentifier `SEQUENCE { OID, params }` that derives a key from a password: checks its cost. */
function checkAlgorithm(node: Asn1, what: string): void {
  const [idNode, params] = children(node);
  const id = oidOf(idNode);
  if (!id || !params) return;
  if (id.startsWith(PKCS12_PBE_PREFIX)) {
    check(what, integerOf(children(params)[1]), MAX_PBKDF_ITERATIONS, 'PBE iterations');
  } else if (id === PBES2) {
    const kdf = children(params)[0];
    if (kdf) checkAlgorithm(kdf, what);
  } else if (id === PBKDF2) {
    check(what, integerOf(children(params)[1]), MAX_PBKDF_ITERATIONS, 'PBKDF2 iterations');
  } else if (id === SCRYPT) {
    check(what, integerOf(children(params)[1]), MAX_SCRYPT_COST, 'as scrypt cost (N)');
  }
}

/**
 * Walks a DER tree (and DER nested in OCTET STRINGs, as PKCS#12 `data` contents are) and
 * checks every password-based algorithm and the PKCS#12 MAC's iteration count.
 */
function walk(node: Asn1, what: string, depth: number): void {
  if (depth > MAX_DEPTH) throw new DerivationLimitError(`${what} is nested too deeply to be a key file`);
  if (node.tagClass === forge.asn1.Class.UNIVERSAL && node.type === forge.asn1.Type.SEQUENCE) checkAlgorithm(node, what);
  if (typeof node.value === 'string' && node.type === forge.asn1.Type.OCTETSTRING && node.value.length > 2 && node.value.charCodeAt(0) === 0x30) {
    let nested: Asn1 | undefined;
    try {
      nested = forge.asn1.fromDer(node.value, true);
    } catch {
      nested = undefined; // Not DER: a salt, a digest or ciphertext.
    }
    if (nested) walk(nested, what, depth + 1);
  }
  for (const child of children(node)) walk(child, what, depth + 1);
}

function parse(der: Buffer): Asn1 | undefined {
  try {
    return forge.asn1.fromDer(der.toString('binary'), false);
  } catch {
    return undefined; // Not DER: the reader reports that itself.
  }
}

/** PKCS#12: the MAC's iterations (macData) and every PBE / PBES2 in the visible structure. */
export function checkPkcs12Costs(der: Buffer): void {
  const what = 'The PKCS#12 file';
  const pfx = parse(der);
  if (!pfx) return;
  const macData = children(pfx)[2];
  if (macData) check(`${what}'s MAC`, integerOf(children(macData)[2]), MAX_PBKDF_ITERATIONS, 'iterations');
  walk(pfx, what, 0);
}

/** Encrypted PKCS#8 (`BEGIN ENCRYPTED PRIVATE KEY` or DER): its PBES2 / PBKDF2 / scrypt parameters. */
export function checkPkcs8Costs(der: Buffer): void {
  const info = parse(der);
  if (info) walk(info, 'The encrypted private key', 0);
}

/** The DER inside a `-----BEGIN ENCRYPTED PRIVATE KEY-----` block, if the text has one. */
export function encryptedPkcs8Der(text: string): Buffer | undefined {
  const block = /-----BEGIN ENCRYPTED PRIVATE KEY-----([\s\S]*?)-----END ENCRYPTED PRIVATE KEY-----/.exec(text);
  return block ? Buffer.from(block[1].replace(/\s+/g, ''), 'base64') : undefined;
}

/** OpenSSH `openssh-key-v1`: the bcrypt rounds in its kdfoptions (cipher, kdfname, kdfoptions follow the magic). */
export function checkOpenSshCosts(body: Buffer): void {
  const magic = 'openssh-key-v1\0';
  let offset = magic.length;
  const next = (): Buffer | undefined => {
    if (offset + 4 > body.length) return undefined;
    const length = body.readUInt32BE(offset);
    if (offset + 4 + length > body.length) return undefined;
    const value = body.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    return value;
  };
  next(); // cipher
  const kdf = next()?.toString('latin1');
  const options = next();
  if (kdf !== 'bcrypt' || !options || options.length < 8) return;
  const saltLength = options.readUInt32BE(0);
  if (4 + saltLength + 4 > options.length) return;
  check('The OpenSSH key', options.readUInt32BE(4 + saltLength), MAX_BCRYPT_ROUNDS, 'bcrypt rounds');
}
