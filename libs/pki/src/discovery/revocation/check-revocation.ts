import 'reflect-metadata';
import { X509Certificate } from '@peculiar/x509';
import { checkCrl } from './crl';
import { checkOcsp } from './ocsp';

export interface RevocationOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

export interface RevocationResult {
  /** null: neither a verified CRL nor a verified OCSP answer was had, so the status is unknown. */
  revoked: boolean | null;
  errors: string[];
}

const DEFAULT_TIMEOUT_MS = 3000;
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
/** OCSP answers are a few KB; a larger one is not worth parsing. */
const OCSP_MAX_BYTES = 64 * 1024;

/**
 * Asks the CRL distribution points and the OCSP responders together. Either source saying
 * revoked wins; otherwise either saying good/not listed is enough. Both need the issuer:
 * an answer only counts once its signature checks out against the issuer key.
 */
export async function checkRevocation(
  leafDer: Buffer,
  issuerDer: Buffer | undefined,
  options: RevocationOptions = {},
): Promise<RevocationResult> {
  const leaf = new X509Certificate(leafDer);
  const issuer = issuerDer ? new X509Certificate(issuerDer) : leaf.subject === leaf.issuer ? leaf : undefined;
  if (!issuer) return { revoked: null, errors: ['Revocation: issuer certificate not presented'] };
  const limits = { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES, maxUrls: 3 };
  const crlErrors: string[] = [];
  const ocspErrors: string[] = [];
  const [crl, ocsp] = await Promise.all([
    checkCrl(leaf, issuer, limits, crlErrors),
    checkOcsp(leaf, issuer, { ...limits, maxBytes: Math.min(limits.maxBytes, OCSP_MAX_BYTES) }, ocspErrors),
  ]);
  return { revoked: combine(crl, ocsp), errors: [...crlErrors, ...ocspErrors] };
}

export function combine(...answers: (boolean | null)[]): boolean | null {
  if (answers.includes(true)) return true;
  if (answers.includes(false)) return false;
  return null;
}
