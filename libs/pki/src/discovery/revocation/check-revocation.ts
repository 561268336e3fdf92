import 'reflect-metadata';
import { X509Certificate } from '@peculiar/x509';
import { checkCrl } from './crl';

export interface RevocationOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

export interface RevocationResult {
  /** null: no usable CRL could be fetched and verified, so the status is unknown. */
  revoked: boolean | null;
  errors: string[];
}

const DEFAULT_TIMEOUT_MS = 3000;
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** Needs the issuer: a CRL only counts once its signature checks out against the issuer key. */
export async function checkRevocation(
  leafDer: Buffer,
  issuerDer: Buffer | undefined,
  options: RevocationOptions = {},
): Promise<RevocationResult> {
  const errors: string[] = [];
  const leaf = new X509Certificate(leafDer);
  const issuer = issuerDer ? new X509Certificate(issuerDer) : leaf.subject === leaf.issuer ? leaf : undefined;
  if (!issuer) return { revoked: null, errors: ['Revocation: issuer certificate not presented'] };
  const revoked = await checkCrl(
    leaf,
    issuer,
    { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES, maxUrls: 3 },
    errors,
  );
  return { revoked, errors };
}
