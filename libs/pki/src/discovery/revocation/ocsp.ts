import 'reflect-metadata';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { AuthorityInfoAccessExtension, X509Certificate } from '@peculiar/x509';
import { boundedFetch } from './bounded-fetch';
import { BuiltOcspRequest, buildOcspRequest } from './ocsp-request';
import { readOcspResponse } from './ocsp-response';

export interface OcspCheckOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Responders tried per certificate; the rest are ignored. */
  maxUrls: number;
}

export function ocspUrls(leaf: X509Certificate): string[] {
  const extension = leaf.getExtension(AuthorityInfoAccessExtension);
  return (extension?.ocsp ?? [])
    .filter((name) => name.type === 'url')
    .map((name) => name.value)
    .filter((uri) => /^https?:\/\//i.test(uri));
}

/**
 * true/false from the first responder whose answer is signed by the issuer (or its
 * delegated responder), names our CertID and is current; null when none gives such an
 * answer. Errors are collected, not thrown.
 */
export async function checkOcsp(
  leaf: X509Certificate,
  issuer: X509Certificate,
  options: OcspCheckOptions,
  errors: string[],
): Promise<boolean | null> {
  const urls = ocspUrls(leaf).slice(0, options.maxUrls);
  if (urls.length === 0) return null;
  let request: BuiltOcspRequest;
  try {
    request = buildOcspRequest(AsnConvert.parse(leaf.rawData, Certificate), AsnConvert.parse(issuer.rawData, Certificate));
  } catch (error) {
    errors.push(`OCSP: cannot build a request: ${(error as Error).message}`);
    return null;
  }
  for (const url of urls) {
    try {
      const body = await boundedFetch(url, {
        method: 'POST',
        body: request.der,
        contentType: 'application/ocsp-request',
        timeoutMs: options.timeoutMs,
        maxBytes: options.maxBytes,
      });
      return await readOcspResponse(body, { ...request, issuer, now: new Date() });
    } catch (error) {
      errors.push(`OCSP: ${url}: ${(error as Error).message}`);
    }
  }
  return null;
}
