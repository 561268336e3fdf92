import { X509Certificate as NodeCertificate } from 'node:crypto';
import { signatureAlgorithmIdentifier, signStructure } from './build';
import { CertificateAuthority } from './ca';
import { sequence, time, tlv, unsignedInteger } from './der-writer';
import { CertificateError } from './errors';
import { extension, EXTENSION_OIDS } from './extensions';
import { asText, isPem, pemBlocks, toPem } from './pem';
import { normaliseSerial } from './serial';
import { x509 } from './x509';

/** revoke_reason codes of the API (spec rule 5); 0–6 are the RFC 5280 CRLReason values. */
export const REVOCATION_REASONS: Readonly<Record<number, string>> = {
  0: 'Unspecified',
  1: 'Key compromise',
  2: 'Certificate Authority compromise',
  3: 'Affiliation changed',
  4: 'Superseded',
  5: 'Cessation of operation',
  6: 'Certificate hold',
  7: 'Remove from CRL',
};

/** API code 7: the entry is taken off the CRL (e.g. releasing a hold), so it is not listed. */
export const REMOVE_FROM_CRL = 7;

// Codes only seen on CRLs from other issuers (RFC 5280 §5.3.1).
const OTHER_RFC_REASONS: Readonly<Record<number, string>> = {
  8: 'Remove from CRL',
  9: 'Privilege withdrawn',
  10: 'AA compromise',
};

export function revocationReasonName(code: number): string {
  return REVOCATION_REASONS[code] ?? OTHER_RFC_REASONS[code] ?? `Reason ${code}`;
}

export function checkRevocationReason(code: number | string): number {
  const n = Number(code);
  if (!Number.isInteger(n) || n < 0 || n > 7) {
    throw new CertificateError('INVALID_INPUT', `revoke_reason must be a whole number from 0 to 7, not "${code}".`);
  }
  return n;
}

export interface RevokedEntry {
  /** Hex serial of the revoked certificate. */
  serialNumber: string;
  revocationDate: Date;
  /** API code 0–7. */
  reason: number;
}

export interface CrlRequest {
  entries: RevokedEntry[];
  /** Monotonic CRL number kept by the caller. */
  crlNumber: number | bigint;
  thisUpdate?: Date;
  /** Default: thisUpdate + 7 days. */
  nextUpdate?: Date;
  signatureAlgorithm?: string;
}

export interface BuiltCrl {
  crlPem: string;
  der: Buffer;
  /** Serials actually listed (code 7 entries are left out). */
  listedSerials: string[];
}

const WEEK_MS = 7 * 86_400_000;

/**
 * X.509 v2 CRL signed by the CA, with CRL number and authority key identifier. Reason 0
 * is listed without a reasonCode extension, as RFC 5280 §5.3.1 asks.
 */
export async function createCrl(ca: CertificateAuthority, request: CrlRequest): Promise<BuiltCrl> {
  const sig = ca.signatureAlgorithmFor(request.signatureAlgorithm);
  const thisUpdate = request.thisUpdate ?? new Date();
  const nextUpdate = request.nextUpdate ?? new Date(thisUpdate.getTime() + WEEK_MS);
  if (nextUpdate <= thisUpdate) throw new CertificateError('INVALID_INPUT', 'nextUpdate must be after thisUpdate.');
  const listed = request.entries.filter((e) => checkRevocationReason(e.reason) !== REMOVE_FROM_CRL);
  const revoked = listed.map((e) => {
    const serial = normaliseSerial(e.serialNumber);
    if (!/^[0-9A-F]+$/.test(serial)) throw new CertificateError('INVALID_INPUT', `"${e.serialNumber}" is not a hex serial number.`);
    const extensions = e.reason === 0 ? [] : [sequence(reasonCodeExtension(e.reason))];
    return sequence(unsignedInteger(Buffer.from(serial.length % 2 ? `0${serial}` : serial, 'hex')), time(e.revocationDate), ...extensions);
  });
  const crlNumber = BigInt(request.crlNumber);
  if (crlNumber < 0n) throw new CertificateError('INVALID_INPUT', 'The CRL number cannot be negative.');
  const tbs = sequence(
    unsignedInteger(Buffer.from([1])),
    signatureAlgorithmIdentifier(sig),
    ca.subjectDer,
    time(thisUpdate),
    time(nextUpdate),
    ...(revoked.length ? [sequence(...revoked)] : []),
    tlv(0xa0, sequence(ca.authorityKeyIdentifier, extension(EXTENSION_OIDS.crlNumber, false, unsignedInteger(bigIntBytes(crlNumber))))),
  );
  const der = await signStructure(tbs, { key: ca.privateKey, signatureAlgorithm: sig });
  return { crlPem: toPem(der, 'X509 CRL'), der, listedSerials: listed.map((e) => normaliseSerial(e.serialNumber)) };
}

function reasonCodeExtension(code: number): Buffer {
  return extension(EXTENSION_OIDS.reasonCode, false, tlv(0x0a, Buffer.from([code])));
}

function bigIntBytes(value: bigint): Buffer {
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

export interface CrlEntry {
  serialNumber: string;
  revocationDate: Date;
  /** RFC 5280 reason code; absent when the CRL gives none (i.e. unspecified). */
  reason?: number;
  reasonName: string;
}

export interface ParsedCrl {
  issuerDn: string;
  thisUpdate: Date;
  nextUpdate?: Date;
  crlNumber?: string;
  entries: CrlEntry[];
  crl: x509.X509Crl;
}

export function parseCrl(input: string | Buffer): ParsedCrl {
  const der = isPem(input) ? pemBlocks(asText(input)).find((b) => b.label === 'X509 CRL')?.der : Buffer.from(input);
  if (!der) throw new CertificateError('INVALID_INPUT', 'No "X509 CRL" PEM block found.');
  let crl: x509.X509Crl;
  try {
    crl = new x509.X509Crl(der);
  } catch {
    throw new CertificateError('INVALID_INPUT', 'The CRL could not be parsed.');
  }
  const numberExt = crl.extensions.find((e) => e.type === EXTENSION_OIDS.crlNumber);
  return {
    issuerDn: crl.issuer,
    thisUpdate: crl.thisUpdate,
    nextUpdate: crl.nextUpdate,
    crlNumber: numberExt ? BigInt(`0x${Buffer.from(numberExt.value).subarray(2).toString('hex') || '0'}`).toString() : undefined,
    entries: crl.entries.map((e) => ({
      serialNumber: normaliseSerial(e.serialNumber),
      revocationDate: e.revocationDate,
      reason: e.reason,
      reasonName: revocationReasonName(e.reason ?? 0),
    })),
    crl,
  };
}

export function findRevokedEntry(crl: ParsedCrl | string | Buffer, serialNumber: string): CrlEntry | undefined {
  const parsed = typeof crl === 'string' || Buffer.isBuffer(crl) ? parseCrl(crl) : crl;
  const serial = normaliseSerial(serialNumber);
  return parsed.entries.find((e) => e.serialNumber === serial);
}

/** Checks the CRL's signature against its issuer's certificate. */
export async function verifyCrl(crl: ParsedCrl | string | Buffer, issuerCertPem: string): Promise<boolean> {
  const parsed = typeof crl === 'string' || Buffer.isBuffer(crl) ? parseCrl(crl) : crl;
  try {
    return await parsed.crl.verify({ publicKey: new x509.X509Certificate(issuerCertPem) });
  } catch {
    return false;
  }
}

export interface RevocationStatus {
  revoked: boolean;
  entry?: CrlEntry;
}

/**
 * The TLS scanner's "Revoked" check: the certificate is revoked when a CRL from its
 * issuer, signed by that issuer, lists its serial.
 */
export async function revocationStatus(certPem: string, crl: string | Buffer, issuerCertPem: string): Promise<RevocationStatus> {
  const parsed = parseCrl(crl);
  const cert = new NodeCertificate(certPem);
  const issuer = new NodeCertificate(issuerCertPem);
  if (!cert.checkIssued(issuer)) {
    throw new CertificateError('INVALID_INPUT', 'The given issuer certificate did not issue this certificate.');
  }
  if (!(await verifyCrl(parsed, issuerCertPem))) {
    throw new CertificateError('INVALID_SIGNATURE', 'The CRL is not signed by the certificate issuer.');
  }
  const entry = findRevokedEntry(parsed, cert.serialNumber);
  return { revoked: entry !== undefined, entry };
}
