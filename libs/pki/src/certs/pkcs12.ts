import { createHash } from 'node:crypto';
import * as forge from 'node-forge';
import { explicit, fromDer, integer, nullValue, octets, oid, sequence, set, toDer } from './der';
import { CertificateError } from './errors';
import { loadPrivateKey, toPkcs8Der, toPkcs8Pem } from './keys';
import { readCertificateDers } from './parse';
import { toPem } from './pem';
import { checkPkcs12Costs, withinLimits } from './derivation-limits';

const { asn1 } = forge;

const OIDS = {
  data: '1.2.840.113549.1.7.1',
  certBag: '1.2.840.113549.1.12.10.1.3',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  friendlyName: '1.2.840.113549.1.9.20',
  localKeyId: '1.2.840.113549.1.9.21',
  sha256: '2.16.840.1.101.3.4.2.1',
};

const ITERATIONS = 2048;

export interface KeyStoreContents {
  /** Unencrypted PKCS#8 PEM, when the store holds a key. */
  privateKeyPem?: string;
  /** Leaf first when the store pairs a key with its chain. */
  certPems: string[];
  alias?: string;
}

export interface Pkcs12Input {
  privateKeyPem?: string;
  /** The certificate for the key first, then its chain. */
  certPems: string[];
  password: string;
  alias?: string;
}

/**
 * PKCS#12 with the key in a PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC) shrouded key bag and
 * an HMAC-SHA256 MAC, the OpenSSL 3 defaults. The key bag is built from the PKCS#8 DER,
 * so EC keys work too (forge's own writer only takes RSA key objects).
 */
export function writePkcs12(input: Pkcs12Input): Buffer {
  if (!input.password) throw new CertificateError('INVALID_INPUT', 'A password is required to create a PKCS#12 file.');
  const certDers = input.certPems.flatMap((p) => readCertificateDers(p));
  if (certDers.length === 0) throw new CertificateError('INVALID_INPUT', 'A PKCS#12 file needs at least one certificate.');
  const localKeyId = createHash('sha1').update(certDers[0]).digest();
  const attributes = bagAttributes(localKeyId, input.alias);

  const certBags = certDers.map((der, i) =>
    sequence([
      oid(OIDS.certBag),
      explicit(0, [sequence([oid(OIDS.x509Certificate), explicit(0, [octets(der)])])]),
      i === 0 ? attributes : undefined,
    ]),
  );
  const contents = [dataContentInfo(sequence(certBags))];

  if (input.privateKeyPem) {
    const keyInfo = fromDer(toPkcs8Der(loadPrivateKey(input.privateKeyPem)));
    const options = { algorithm: 'aes256', prfAlgorithm: 'sha256', count: ITERATIONS, saltSize: 16 };
    // @types/node-forge lacks prfAlgorithm, which forge's pbe.js supports.
    const encrypted = forge.pki.encryptPrivateKeyInfo(keyInfo, input.password, options as never);
    const keyBag = sequence([oid(OIDS.shroudedKeyBag), explicit(0, [encrypted]), attributes]);
    contents.push(dataContentInfo(sequence([keyBag])));
  }

  const authSafe = toDer(sequence(contents));
  return toDer(sequence([integer(3), dataContentInfo(authSafe), macData(authSafe, input.password)]));
}

function bagAttributes(localKeyId: Buffer, alias: string | undefined): forge.asn1.Asn1 {
  const attrs = [sequence([oid(OIDS.localKeyId), set([octets(localKeyId)])])];
  if (alias) {
    const bmp = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BMPSTRING, false, alias);
    attrs.push(sequence([oid(OIDS.friendlyName), set([bmp])]));
  }
  return set(attrs);
}

function dataContentInfo(content: forge.asn1.Asn1 | Buffer): forge.asn1.Asn1 {
  const bytes = Buffer.isBuffer(content) ? content : toDer(content);
  return sequence([oid(OIDS.data), explicit(0, [octets(bytes)])]);
}

function macData(authSafe: Buffer, password: string): forge.asn1.Asn1 {
  const salt = forge.random.getBytesSync(16);
  const key = forge.pkcs12.generateKey(
    password,
    forge.util.createBuffer(salt),
    3,
    ITERATIONS,
    32,
    forge.md.sha256.create(),
  );
  const hmac = forge.hmac.create();
  hmac.start('sha256', key.getBytes());
  hmac.update(authSafe.toString('binary'));
  const digest = Buffer.from(hmac.digest().getBytes(), 'binary');
  return sequence([
    sequence([sequence([oid(OIDS.sha256), nullValue()]), octets(digest)]),
    octets(salt),
    integer(ITERATIONS),
  ]);
}

/** Reads a PKCS#12 file (RSA or EC, as written by us, OpenSSL, Java or Windows). */
export function readPkcs12(data: Buffer, password: string): KeyStoreContents {
  withinLimits(() => checkPkcs12Costs(data));
  let pfx: forge.pkcs12.Pkcs12Pfx;
  try {
    pfx = forge.pkcs12.pkcs12FromAsn1(fromDer(data), false, password);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (/password|MAC could not be verified|decrypt/i.test(message)) {
      throw new CertificateError('WRONG_PASSWORD', 'The PKCS#12 password is wrong.');
    }
    throw new CertificateError('INVALID_INPUT', 'The file is not a readable PKCS#12 keystore.');
  }
  const bags = pfx.safeContents.flatMap((c) => c.safeBags);
  const keyBag = bags.find((b) => b.type === OIDS.shroudedKeyBag || b.type === forge.pki.oids.keyBag);
  const certBags = bags.filter((b) => b.type === OIDS.certBag);
  const certDers = certBags.map((b) =>
    b.cert ? toDer(forge.pki.certificateToAsn1(b.cert)) : toDer(b.asn1),
  );
  let privateKeyPem: string | undefined;
  if (keyBag) {
    // forge parses RSA keys into objects and leaves other key types as PrivateKeyInfo ASN.1.
    const info = keyBag.key ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(keyBag.key)) : keyBag.asn1;
    privateKeyPem = toPkcs8Pem(loadPrivateKey(toPem(toDer(info), 'PRIVATE KEY')));
  }
  const alias = (keyBag?.attributes?.friendlyName ?? certBags[0]?.attributes?.friendlyName)?.[0] as string | undefined;
  return { privateKeyPem, certPems: orderWithKeyFirst(certDers, keyBag?.attributes?.localKeyId?.[0], certBags), alias };
}

function orderWithKeyFirst(ders: Buffer[], keyId: string | undefined, bags: forge.pkcs12.Bag[]): string[] {
  const pems = ders.map((d) => toPem(d, 'CERTIFICATE'));
  if (keyId === undefined) return pems;
  const index = bags.findIndex((b) => b.attributes?.localKeyId?.[0] === keyId);
  if (index <= 0) return pems;
  return [pems[index], ...pems.filter((_, i) => i !== index)];
}
