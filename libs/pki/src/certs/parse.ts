import { createHash, X509Certificate as NodeCertificate } from 'node:crypto';
import { signatureAlgorithmName } from './algorithms';
import { signatureOidOf } from './der';
import { certificateParts } from './der-writer';
import { CertificateError } from './errors';
import { describePublicKey } from './keys';
import { asText, isPem, pemBlocks, toPem } from './pem';
import { readPkcs7 } from './pkcs7';
import { normaliseSerial } from './serial';
import { SanEntry, SanType } from './subject';
import { x509 } from './x509';

export interface NameDetails {
  cname: string;
  org: string;
  orgunit: string;
  /** RFC 4514 text, most specific first (CN=..., OU=..., O=..., C=...). */
  dn: string;
}

export interface CertificateDetails {
  subject: NameDetails;
  issuer: NameDetails;
  /** SAN values as text (DNS names, IP addresses, e-mail addresses, URIs). */
  sans: string[];
  sanEntries: SanEntry[];
  serialNumber: string;
  fingerprintSha1: string;
  fingerprintSha256: string;
  notBefore: Date;
  notAfter: Date;
  signatureAlgorithm: string;
  keyAlgorithm: string;
  keyLength: number;
  isCA: boolean;
  selfSigned: boolean;
  pem: string;
}

const CERT_LABELS = new Set(['CERTIFICATE', 'X509 CERTIFICATE', 'TRUSTED CERTIFICATE']);
const SAN_TYPES: ReadonlySet<string> = new Set<SanType>(['dns', 'ip', 'email', 'url']);

/**
 * Every certificate in a PEM bundle, a DER certificate, or a PKCS#7 bundle (PEM or
 * DER), returned as DER in file order.
 */
export function readCertificateDers(input: string | Buffer): Buffer[] {
  if (isPem(input)) {
    const blocks = pemBlocks(asText(input));
    const ders = blocks.filter((b) => CERT_LABELS.has(b.label)).map((b) => b.der);
    for (const block of blocks.filter((b) => b.label === 'PKCS7')) ders.push(...readPkcs7(block.der));
    if (ders.length === 0) throw new CertificateError('INVALID_INPUT', 'No certificate found in the PEM text.');
    return ders;
  }
  const der = Buffer.from(input);
  try {
    new NodeCertificate(der);
    return [der];
  } catch {
    return readPkcs7(der);
  }
}

export function readCertificatePems(input: string | Buffer): string[] {
  return readCertificateDers(input).map((der) => toPem(der, 'CERTIFICATE'));
}

export function loadCertificate(input: string | Buffer): NodeCertificate {
  const [der] = readCertificateDers(input);
  try {
    return new NodeCertificate(der);
  } catch {
    throw new CertificateError('INVALID_INPUT', 'The certificate could not be parsed.');
  }
}

export function certificateDetails(input: string | Buffer): CertificateDetails {
  const node = loadCertificate(input);
  const der = node.raw;
  const cert = new x509.X509Certificate(der);
  const sanEntries = subjectAltNames(cert);
  const key = describePublicKey(node.publicKey);
  return {
    subject: nameDetails(cert.subjectName),
    issuer: nameDetails(cert.issuerName),
    sans: sanEntries.map((e) => e.value),
    sanEntries,
    serialNumber: normaliseSerial(node.serialNumber),
    fingerprintSha1: colonHex(createHash('sha1').update(der).digest()),
    fingerprintSha256: colonHex(createHash('sha256').update(der).digest()),
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    signatureAlgorithm: signatureAlgorithmName(signatureOidOf(der)),
    keyAlgorithm: key.algorithm,
    keyLength: key.length,
    isCA: cert.getExtension(x509.BasicConstraintsExtension)?.ca ?? false,
    selfSigned: isSelfSigned(node),
    pem: toPem(der, 'CERTIFICATE'),
  };
}

export function certificateBundleDetails(input: string | Buffer): CertificateDetails[] {
  return orderChain(readCertificatePems(input)).map((pem) => certificateDetails(pem));
}

export function nameDetails(name: x509.Name): NameDetails {
  const first = (field: string) => name.getField(field)[0] ?? '';
  return { cname: first('CN'), org: first('O'), orgunit: first('OU'), dn: rfc4514(name) };
}

function rfc4514(name: x509.Name): string {
  // x509.Name prints in DER order (C first); RFC 4514 and Java print the reverse.
  return name
    .toJSON()
    .slice()
    .reverse()
    .map((rdn) =>
      Object.entries(rdn)
        .flatMap(([type, values]) => values.map((v) => `${type}=${escapeDnValue(v)}`))
        .join('+'),
    )
    .join(', ');
}

function escapeDnValue(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, '\\$1').replace(/^([ #])/, '\\$1').replace(/ $/, '\\ ');
}

function subjectAltNames(cert: x509.X509Certificate): SanEntry[] {
  const ext = cert.getExtension(x509.SubjectAlternativeNameExtension);
  if (!ext) return [];
  return ext.names.items
    .filter((n) => SAN_TYPES.has(n.type))
    .map((n) => ({ type: n.type as SanType, value: n.value }));
}

export function colonHex(bytes: Buffer): string {
  return bytes.toString('hex').toUpperCase().replace(/(..)(?!$)/g, '$1:');
}

/**
 * Same subject and issuer name and a signature that verifies with its own key. (node's
 * checkIssued is not used: it also demands keyCertSign, which self-signed leaves lack.)
 */
export function isSelfSigned(cert: NodeCertificate): boolean {
  return issuedBy(cert, cert);
}

function issuedBy(subject: NodeCertificate, issuer: NodeCertificate): boolean {
  const names = certificateParts(subject.raw);
  if (!names.issuerDer.equals(certificateParts(issuer.raw).subjectDer)) return false;
  return signedBy(subject, issuer);
}

function signedBy(subject: NodeCertificate, issuer: NodeCertificate): boolean {
  try {
    return subject.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** The most certificates one upload may hold (a leaf, its chain, a few spares): ordering them is bounded work. */
export const MAX_CERTIFICATES_PER_UPLOAD = 20;

/**
 * Orders certificates leaf first, each followed by its issuer. When several chains are
 * mixed, the longest comes first; certificates off that path follow in input order. At most
 * MAX_CERTIFICATES_PER_UPLOAD; issuers are matched by name first, and each candidate pair's
 * signature is verified at most once, so a bundle of look-alikes cannot hold the event loop.
 */
export function orderChain(pems: string[]): string[] {
  if (pems.length > MAX_CERTIFICATES_PER_UPLOAD) {
    throw new CertificateError('INVALID_INPUT', `The upload holds ${pems.length} certificates; at most ${MAX_CERTIFICATES_PER_UPLOAD} are accepted in one upload`);
  }
  const certs = uniqueByFingerprint(pems.map((pem) => loadCertificate(pem)));
  const parts = new Map(certs.map((c) => [c, certificateParts(c.raw)]));
  const bySubject = new Map<string, NodeCertificate[]>();
  for (const c of certs) {
    const key = parts.get(c)!.subjectDer.toString('hex');
    bySubject.set(key, [...(bySubject.get(key) ?? []), c]);
  }
  const verified = new Map<string, boolean>();
  const issues = (issuer: NodeCertificate, subject: NodeCertificate): boolean => {
    if (issuer === subject || !parts.get(subject)!.issuerDer.equals(parts.get(issuer)!.subjectDer)) return false;
    const key = `${issuer.fingerprint256}>${subject.fingerprint256}`;
    if (!verified.has(key)) verified.set(key, signedBy(subject, issuer));
    return verified.get(key)!;
  };
  const issuersOf = (subject: NodeCertificate) => (bySubject.get(parts.get(subject)!.issuerDer.toString('hex')) ?? []).filter((c) => issues(c, subject));
  const pathFrom = (leaf: NodeCertificate): NodeCertificate[] => {
    const path = [leaf];
    for (;;) {
      const last = path[path.length - 1];
      const next = issuersOf(last).find((c) => !path.includes(c));
      if (!next) return path;
      path.push(next);
    }
  };
  const issuesSomething = new Set(certs.flatMap((c) => issuersOf(c)));
  const leaves = certs.filter((c) => !issuesSomething.has(c));
  const paths = (leaves.length ? leaves : certs.slice(0, 1)).map(pathFrom);
  const best = paths.reduce((a, b) => (b.length > a.length ? b : a), paths[0] ?? []);
  const rest = certs.filter((c) => !best.includes(c));
  return [...best, ...rest].map((c) => toPem(c.raw, 'CERTIFICATE'));
}

function uniqueByFingerprint(certs: NodeCertificate[]): NodeCertificate[] {
  const seen = new Set<string>();
  return certs.filter((c) => {
    if (seen.has(c.fingerprint256)) return false;
    seen.add(c.fingerprint256);
    return true;
  });
}
