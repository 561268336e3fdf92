import 'reflect-metadata';
import { CRLDistributionPointsExtension, X509Certificate, X509Crl } from '@peculiar/x509';
import { boundedFetch } from './bounded-fetch';

export interface CrlCheckOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Distribution points tried per certificate; the rest are ignored. */
  maxUrls: number;
}

export function crlUrls(leaf: X509Certificate): string[] {
  const extension = leaf.getExtension(CRLDistributionPointsExtension);
  return (extension?.distributionPoints ?? [])
    .flatMap((point) => point.distributionPoint?.fullName ?? [])
    .map((name) => name.uniformResourceIdentifier)
    .filter((uri): uri is string => !!uri && /^https?:\/\//i.test(uri));
}

/**
 * true/false from the first CRL that is signed by the issuer, names it, and is current;
 * null when no distribution point yields such a CRL. Errors are collected, not thrown.
 */
export async function checkCrl(
  leaf: X509Certificate,
  issuer: X509Certificate,
  options: CrlCheckOptions,
  errors: string[],
): Promise<boolean | null> {
  for (const url of crlUrls(leaf).slice(0, options.maxUrls)) {
    try {
      const body = await boundedFetch(url, { timeoutMs: options.timeoutMs, maxBytes: options.maxBytes });
      const crl = new X509Crl(looksLikePem(body) ? body.toString('ascii') : body);
      if (crl.issuer !== issuer.subject) throw new Error(`CRL at ${url} is issued by ${crl.issuer}, not ${issuer.subject}`);
      if (!(await crl.verify({ publicKey: issuer.publicKey }))) throw new Error(`CRL at ${url} has a bad signature`);
      if (crl.findRevoked(leaf.serialNumber)) return true;
      if (crl.nextUpdate && crl.nextUpdate.getTime() < Date.now()) throw new Error(`CRL at ${url} is stale`);
      return false;
    } catch (error) {
      errors.push(`CRL: ${(error as Error).message}`);
    }
  }
  return null;
}

function looksLikePem(body: Buffer): boolean {
  return body.subarray(0, 64).toString('ascii').includes('-----BEGIN');
}
