import 'reflect-metadata';
import { createHash, KeyObject } from 'node:crypto';
import {
  CertID,
  CertStatus,
  OCSPRequest,
  OCSPResponse,
  OCSPResponseStatus,
  ResponderID,
  ResponseBytes,
  ResponseData,
  RevokedInfo,
  SingleResponse,
  id_pkix_ocsp_basic,
  id_pkix_ocsp_nonce,
  KeyHash,
} from '@peculiar/asn1-ocsp';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { CRLReason, Extension } from '@peculiar/asn1-x509';
import { SignatureAlgorithm } from './algorithms';
import { nativeSign, signatureAlgorithmIdentifier } from './build';
import { CertificateAuthority } from './ca';
import { bitString, sequence, tlv } from './der-writer';
import { CertificateError } from './errors';
import { REMOVE_FROM_CRL } from './crl';

// The responder side of RFC 6960: read a request, say what each CertID's status is, and
// sign the answer with the CA's key or with a delegated responder's key.

/** Hash algorithms a CertID may use; SHA-1 is what most clients send (RFC 5019). */
const CERT_ID_HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** RFC 8954 caps the nonce at 32 octets; a little slack for clients that wrap it twice. */
const MAX_NONCE_BYTES = 64;
const MAX_CERT_IDS = 20;

export interface ParsedOcspRequest {
  certIds: CertID[];
  /** The nonce extension's extnValue as sent, echoed verbatim in the response. */
  nonce?: Buffer;
}

export function parseOcspRequest(der: Buffer): ParsedOcspRequest {
  let request: OCSPRequest;
  try {
    request = AsnConvert.parse(der, OCSPRequest);
  } catch {
    throw new CertificateError('INVALID_INPUT', 'The OCSP request could not be parsed.');
  }
  const certIds = request.tbsRequest.requestList.map((r) => r.reqCert);
  if (certIds.length === 0 || certIds.length > MAX_CERT_IDS) {
    throw new CertificateError('INVALID_INPUT', `An OCSP request must ask about 1 to ${MAX_CERT_IDS} certificates.`);
  }
  const nonce = request.tbsRequest.requestExtensions?.find((e) => e.extnID === id_pkix_ocsp_nonce);
  const value = nonce ? Buffer.from(nonce.extnValue.buffer) : undefined;
  if (value && (value.length === 0 || value.length > MAX_NONCE_BYTES)) {
    throw new CertificateError('INVALID_INPUT', `The OCSP nonce must be 1 to ${MAX_NONCE_BYTES} bytes.`);
  }
  return { certIds, nonce: value };
}

/** Whether the CertID names this CA (its name and key hashed with the CertID's algorithm). */
export function certIdNamesCa(certId: CertID, ca: CertificateAuthority): boolean {
  const hash = CERT_ID_HASHES[certId.hashAlgorithm.algorithm];
  if (!hash) return false;
  const digest = (data: Buffer) => createHash(hash).update(data).digest();
  return (
    digest(ca.subjectDer).equals(Buffer.from(certId.issuerNameHash.buffer)) &&
    digest(ca.publicKeyBits).equals(Buffer.from(certId.issuerKeyHash.buffer))
  );
}

/** Canonical serial text of a CertID (uppercase hex, minimal even length), as the inventory stores it. */
export function certIdSerial(certId: CertID): string {
  let hex = Buffer.from(certId.serialNumber).toString('hex').toUpperCase().replace(/^(00)+(?=..)/, '');
  if (hex.length % 2) hex = `0${hex}`;
  return hex;
}

export type OcspCertStatus =
  | { status: 'good' }
  | { status: 'unknown' }
  | { status: 'revoked'; revokedAt: Date; /** API code 0–6 (7 is never revoked). */ reason: number };

export interface OcspAnswer {
  certId: CertID;
  status: OcspCertStatus;
}

export interface OcspSigner {
  /** The CA itself, or a delegated responder whose certificate goes into the response. */
  ca: CertificateAuthority;
  responder?: { key: KeyObject; certDer: Buffer; publicKeyBits: Buffer; signatureAlgorithm: SignatureAlgorithm };
}

export interface OcspResponseOptions {
  answers: OcspAnswer[];
  nonce?: Buffer;
  thisUpdate: Date;
  nextUpdate: Date;
}

/** A signed, successful basic OCSP response. */
export async function buildOcspResponse(signer: OcspSigner, options: OcspResponseOptions): Promise<Buffer> {
  const key = signer.responder?.key ?? signer.ca.privateKey;
  const keyBits = signer.responder?.publicKeyBits ?? signer.ca.publicKeyBits;
  const sig = signer.responder?.signatureAlgorithm ?? signer.ca.signatureAlgorithmFor(undefined);
  const data = new ResponseData({
    responderID: new ResponderID({ byKey: new KeyHash(createHash('sha1').update(keyBits).digest()) }),
    producedAt: wholeSeconds(options.thisUpdate),
    responses: options.answers.map(
      (a) =>
        new SingleResponse({
          certID: a.certId,
          certStatus: certStatus(a.status),
          thisUpdate: wholeSeconds(options.thisUpdate),
          nextUpdate: wholeSeconds(options.nextUpdate),
        }),
    ),
    responseExtensions: options.nonce
      ? [new Extension({ extnID: id_pkix_ocsp_nonce, extnValue: new OctetString(options.nonce) })]
      : undefined,
  });
  const tbs = Buffer.from(AsnConvert.serialize(data));
  const signature = await nativeSign(sig, tbs, key);
  const certs = signer.responder ? [tlv(0xa0, sequence(signer.responder.certDer))] : [];
  const basic = sequence(tbs, signatureAlgorithmIdentifier(sig), bitString(signature), ...certs);
  return Buffer.from(
    AsnConvert.serialize(
      new OCSPResponse({
        responseStatus: OCSPResponseStatus.successful,
        responseBytes: new ResponseBytes({ responseType: id_pkix_ocsp_basic, response: new OctetString(basic) }),
      }),
    ),
  );
}

/** An unsigned error answer: malformedRequest, internalError, tryLater or unauthorized. */
export function ocspErrorResponse(status: Exclude<OCSPResponseStatus, OCSPResponseStatus.successful>): Buffer {
  return Buffer.from(AsnConvert.serialize(new OCSPResponse({ responseStatus: status })));
}

function certStatus(status: OcspCertStatus): CertStatus {
  switch (status.status) {
    case 'good':
      return new CertStatus({ good: null });
    case 'unknown':
      return new CertStatus({ unknown: null });
    case 'revoked':
      if (status.reason === REMOVE_FROM_CRL) throw new Error('reason 7 is not a revocation');
      return new CertStatus({
        revoked: new RevokedInfo({ revocationTime: wholeSeconds(status.revokedAt), revocationReason: new CRLReason(status.reason) }),
      });
  }
}

// GeneralizedTime in DER carries no fractional seconds here (RFC 5280 §4.1.2.5.2 style).
function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}
