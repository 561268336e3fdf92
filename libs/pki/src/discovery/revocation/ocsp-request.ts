import { createHash, randomBytes } from 'node:crypto';
import { CertID, OCSPRequest, Request, TBSRequest, id_pkix_ocsp_nonce } from '@peculiar/asn1-ocsp';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, Certificate, Extension } from '@peculiar/asn1-x509';

const ID_SHA1 = '1.3.14.3.2.26';

const sha1 = (data: ArrayBuffer) => createHash('sha1').update(Buffer.from(data)).digest();

/** RFC 6960 §4.1.1: hashes of the issuer's name DER and of its public key BIT STRING contents. */
export function certIdFor(leaf: Certificate, issuer: Certificate): CertID {
  return new CertID({
    hashAlgorithm: new AlgorithmIdentifier({ algorithm: ID_SHA1, parameters: null }),
    issuerNameHash: new OctetString(sha1(AsnConvert.serialize(issuer.tbsCertificate.subject))),
    issuerKeyHash: new OctetString(sha1(issuer.tbsCertificate.subjectPublicKeyInfo.subjectPublicKey)),
    serialNumber: leaf.tbsCertificate.serialNumber,
  });
}

export interface BuiltOcspRequest {
  der: Buffer;
  certId: CertID;
  /** The nonce extension value as sent (DER OCTET STRING), to match against the reply. */
  nonce: Buffer;
}

export function buildOcspRequest(leaf: Certificate, issuer: Certificate): BuiltOcspRequest {
  const certId = certIdFor(leaf, issuer);
  // RFC 8954: Nonce ::= OCTET STRING, carried DER-encoded inside extnValue.
  const nonce = Buffer.from(AsnConvert.serialize(new OctetString(randomBytes(16))));
  const request = new OCSPRequest({
    tbsRequest: new TBSRequest({
      requestList: [new Request({ reqCert: certId })],
      requestExtensions: [new Extension({ extnID: id_pkix_ocsp_nonce, extnValue: new OctetString(nonce) })],
    }),
  });
  return { der: Buffer.from(AsnConvert.serialize(request)), certId, nonce };
}

export function sameCertId(a: CertID, b: CertID): boolean {
  return (
    a.hashAlgorithm.algorithm === b.hashAlgorithm.algorithm &&
    equalBytes(a.issuerNameHash.buffer, b.issuerNameHash.buffer) &&
    equalBytes(a.issuerKeyHash.buffer, b.issuerKeyHash.buffer) &&
    equalBytes(stripLeadingZeros(a.serialNumber), stripLeadingZeros(b.serialNumber))
  );
}

export function equalBytes(a: ArrayBuffer | Buffer, b: ArrayBuffer | Buffer): boolean {
  return Buffer.from(a as ArrayBuffer).equals(Buffer.from(b as ArrayBuffer));
}

function stripLeadingZeros(serial: ArrayBuffer): Buffer {
  const bytes = Buffer.from(serial);
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return bytes.subarray(start);
}
