import { KeyObject } from 'node:crypto';
import { SignatureAlgorithm, webCryptoSigning } from './algorithms';
import { randomSerialHex } from './serial';
import { ValidityPeriod } from './subject';
import { CryptoKey, x509 } from './x509';

export interface CertificateBody {
  subjectName: x509.Name;
  issuerName: x509.Name;
  publicKey: KeyObject;
  validity: ValidityPeriod;
  extensions: x509.Extension[];
}

export interface Signer {
  key: CryptoKey;
  signatureAlgorithm: SignatureAlgorithm;
}

export interface BuiltCertificate {
  certPem: string;
  der: Buffer;
  serialNumber: string;
}

/** Assembles and signs one certificate with a fresh random serial (signing is WebCrypto, i.e. native). */
export async function buildCertificate(body: CertificateBody, signer: Signer): Promise<BuiltCertificate> {
  const serialNumber = randomSerialHex();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber,
    subject: body.subjectName,
    issuer: body.issuerName,
    notBefore: body.validity.notBefore,
    notAfter: body.validity.notAfter,
    publicKey: spkiOf(body.publicKey),
    signingKey: signer.key,
    signingAlgorithm: webCryptoSigning(signer.signatureAlgorithm),
    extensions: body.extensions,
  });
  const der = Buffer.from(cert.rawData);
  return { certPem: cert.toString('pem') + '\n', der, serialNumber };
}

export function spkiOf(key: KeyObject): Buffer {
  return key.export({ type: 'spki', format: 'der' });
}

/** RFC 5280 method 1 key identifier (SHA-1 of the subjectPublicKey bits), hex. */
export async function keyIdentifier(publicKey: KeyObject): Promise<string> {
  return (await x509.SubjectKeyIdentifierExtension.create(spkiOf(publicKey))).keyId;
}

export function keyIdentifierExtensions(subjectKeyId: string, authorityKeyId: string): x509.Extension[] {
  return [
    new x509.SubjectKeyIdentifierExtension(subjectKeyId),
    new x509.AuthorityKeyIdentifierExtension(authorityKeyId),
  ];
}

export function crlDistributionPoint(url: string | undefined): x509.Extension[] {
  if (!url) return [];
  return [new x509.CRLDistributionPointsExtension([url])];
}
