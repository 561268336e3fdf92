import {
  BasicOCSPResponse,
  CertID,
  OCSPResponse,
  OCSPResponseStatus,
  SingleResponse,
  id_kp_OCSPSigning,
  id_pkix_ocsp_basic,
  id_pkix_ocsp_nonce,
} from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { ExtendedKeyUsageExtension, X509Certificate } from '@peculiar/x509';
import { equalBytes, sameCertId } from './ocsp-request';
import { verifySignature } from './signature';

export interface OcspExpectation {
  certId: CertID;
  nonce: Buffer;
  issuer: X509Certificate;
  now: Date;
}

/** Tolerated clock difference between us and the responder. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** A response without nextUpdate is only taken while this fresh. */
const MAX_AGE_WITHOUT_NEXT_UPDATE_MS = 7 * 86_400_000;

/**
 * true (revoked) or false (good) from a response whose signature, CertID and validity
 * window all check out; throws with the reason otherwise, including status `unknown`.
 */
export async function readOcspResponse(body: Buffer, expected: OcspExpectation): Promise<boolean> {
  const response = AsnConvert.parse(body, OCSPResponse);
  if (response.responseStatus !== OCSPResponseStatus.successful) {
    throw new Error(`responder answered ${OCSPResponseStatus[response.responseStatus] ?? response.responseStatus}`);
  }
  if (response.responseBytes?.responseType !== id_pkix_ocsp_basic) throw new Error('response is not a basic OCSP response');
  const basic = AsnConvert.parse(response.responseBytes.response, BasicOCSPResponse);
  await checkSigner(basic, expected.issuer, expected.now);

  const data = basic.tbsResponseData;
  const nonce = data.responseExtensions?.find((extension) => extension.extnID === id_pkix_ocsp_nonce);
  // A responder may ignore the nonce (pre-produced responses); one it echoes must be ours.
  if (nonce && !equalBytes(nonce.extnValue.buffer, expected.nonce)) throw new Error('response nonce does not match the request');

  const single = data.responses.find((candidate) => sameCertId(candidate.certID, expected.certId));
  if (!single) throw new Error('response does not cover the certificate asked about');
  checkWindow(single, expected.now);
  if (single.certStatus.revoked) return true;
  if (single.certStatus.good !== undefined) return false;
  throw new Error('responder does not know the certificate');
}

/**
 * The issuer signs its own responses, or delegates to a certificate it issued with
 * id-kp-OCSPSigning (RFC 6960 §4.2.2.2). Anything else is not trusted, whatever its name.
 */
async function checkSigner(basic: BasicOCSPResponse, issuer: X509Certificate, now: Date): Promise<void> {
  const tbs = basic.tbsResponseDataRaw;
  if (!tbs) throw new Error('response data could not be read');
  const signedBy = (spki: ArrayBuffer) => {
    try {
      return verifySignature(basic.signatureAlgorithm, spki, tbs, basic.signature);
    } catch {
      return false;
    }
  };
  if (signedBy(issuer.publicKey.rawData)) return;
  for (const included of basic.certs ?? []) {
    const delegate = new X509Certificate(AsnConvert.serialize(included));
    if (!signedBy(delegate.publicKey.rawData)) continue;
    if (!(await isDelegatedResponder(delegate, issuer, now))) {
      throw new Error(`response signer ${delegate.subject} is not an OCSP responder authorised by ${issuer.subject}`);
    }
    return;
  }
  throw new Error('response has a bad signature (neither the issuer nor a delegated responder)');
}

async function isDelegatedResponder(delegate: X509Certificate, issuer: X509Certificate, now: Date): Promise<boolean> {
  const usages = delegate.getExtension(ExtendedKeyUsageExtension)?.usages ?? [];
  return (
    delegate.issuer === issuer.subject &&
    usages.includes(id_kp_OCSPSigning) &&
    delegate.notBefore.getTime() <= now.getTime() + CLOCK_SKEW_MS &&
    delegate.notAfter.getTime() >= now.getTime() - CLOCK_SKEW_MS &&
    (await delegate.verify({ publicKey: issuer.publicKey, signatureOnly: true }))
  );
}

function checkWindow(single: SingleResponse, now: Date): void {
  const at = now.getTime();
  const thisUpdate = single.thisUpdate.getTime();
  if (thisUpdate > at + CLOCK_SKEW_MS) throw new Error('response thisUpdate is in the future');
  const nextUpdate = single.nextUpdate?.getTime();
  if (nextUpdate !== undefined) {
    if (nextUpdate < thisUpdate) throw new Error('response nextUpdate precedes thisUpdate');
    if (nextUpdate < at - CLOCK_SKEW_MS) throw new Error('response is stale (nextUpdate has passed)');
  } else if (thisUpdate < at - MAX_AGE_WITHOUT_NEXT_UPDATE_MS) {
    throw new Error('response is stale (no nextUpdate and thisUpdate too old)');
  }
}
