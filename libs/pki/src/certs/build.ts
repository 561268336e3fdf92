import { KeyObject, sign } from 'node:crypto';
import { hashOf, SignatureAlgorithm } from './algorithms';
import { bitString, DER_NULL, objectIdentifier, sequence, time, tlv, unsignedInteger } from './der-writer';
import { toPem } from './pem';
import { randomSerialHex } from './serial';
import { ValidityPeriod } from './subject';

export interface CertificateBody {
  /** DER Name of the subject and of the issuer, used byte for byte. */
  subjectDer: Buffer;
  issuerDer: Buffer;
  /** SubjectPublicKeyInfo DER of the certified key. */
  spkiDer: Buffer;
  validity: ValidityPeriod;
  /** DER Extension elements (see extensions.ts). */
  extensions: Buffer[];
}

export interface Signer {
  key: KeyObject;
  signatureAlgorithm: SignatureAlgorithm;
}

export interface BuiltCertificate {
  certPem: string;
  der: Buffer;
  serialNumber: string;
}

const SIGNATURE_OIDS: Record<SignatureAlgorithm, string> = {
  SHA256withRSA: '1.2.840.113549.1.1.11',
  SHA384withRSA: '1.2.840.113549.1.1.12',
  SHA512withRSA: '1.2.840.113549.1.1.13',
  SHA256withECDSA: '1.2.840.10045.4.3.2',
  SHA384withECDSA: '1.2.840.10045.4.3.3',
  SHA512withECDSA: '1.2.840.10045.4.3.4',
};

/** AlgorithmIdentifier: RSA carries NULL parameters, ECDSA none (RFC 4055, RFC 5758). */
export function signatureAlgorithmIdentifier(sig: SignatureAlgorithm): Buffer {
  const oid = objectIdentifier(SIGNATURE_OIDS[sig]);
  return sig.endsWith('RSA') ? sequence(oid, DER_NULL) : sequence(oid);
}

/** Native signature on the libuv pool (ECDSA comes back DER encoded, as X.509 wants). */
export function nativeSign(sig: SignatureAlgorithm, data: Buffer, key: KeyObject): Promise<Buffer> {
  const hash = hashOf(sig).replace('-', '').toLowerCase();
  return new Promise((resolve, reject) =>
    sign(hash, data, key, (error, signature) => (error ? reject(error) : resolve(signature))),
  );
}

/** Wraps a to-be-signed structure as SIGNED{...}: certificates and CRLs share this shape. */
export async function signStructure(tbs: Buffer, signer: Signer): Promise<Buffer> {
  const algorithm = signatureAlgorithmIdentifier(signer.signatureAlgorithm);
  const signature = await nativeSign(signer.signatureAlgorithm, tbs, signer.key);
  return sequence(tbs, algorithm, bitString(signature));
}

export function spkiOf(key: KeyObject): Buffer {
  return key.export({ type: 'spki', format: 'der' });
}

export async function buildCertificate(body: CertificateBody, signer: Signer): Promise<BuiltCertificate> {
  const serialNumber = randomSerialHex();
  const tbs = sequence(
    tlv(0xa0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(Buffer.from(serialNumber, 'hex')),
    signatureAlgorithmIdentifier(signer.signatureAlgorithm),
    body.issuerDer,
    sequence(time(body.validity.notBefore), time(body.validity.notAfter)),
    body.subjectDer,
    body.spkiDer,
    ...(body.extensions.length ? [tlv(0xa3, sequence(...body.extensions))] : []),
  );
  const der = await signStructure(tbs, signer);
  return { certPem: toPem(der, 'CERTIFICATE'), der, serialNumber };
}
