import { isIP } from 'node:net';
import { CertificateError } from './errors';
import { x509 } from './x509';

export interface SubjectInput {
  commonName: string;
  orgUnit?: string;
  org?: string;
  locality?: string;
  state?: string;
  /** Two-letter ISO 3166 code. */
  country?: string;
}

/** The request fields of createCSR / createCertificate, as the API names them. */
export interface SubjectRequestFields {
  CNAME?: string;
  ORGUNIT?: string;
  ORG?: string;
  LOCATION?: string;
  STATE?: string;
  COUNTRY?: string;
}

export type SanType = 'dns' | 'ip' | 'email' | 'url';

export interface SanEntry {
  type: SanType;
  value: string;
}

export function subjectFromRequest(fields: SubjectRequestFields): SubjectInput {
  return {
    commonName: fields.CNAME ?? '',
    orgUnit: fields.ORGUNIT,
    org: fields.ORG,
    locality: fields.LOCATION,
    state: fields.STATE,
    country: fields.COUNTRY,
  };
}

/** Builds the distinguished name in the conventional C, ST, L, O, OU, CN order. */
export function buildName(subject: SubjectInput): x509.Name {
  const cn = subject.commonName?.trim();
  if (!cn) throw new CertificateError('INVALID_INPUT', 'The common name (CNAME) is required.');
  if (cn.length > 64) throw new CertificateError('INVALID_INPUT', 'The common name (CNAME) must be at most 64 characters.');
  const country = subject.country?.trim();
  if (country && !/^[A-Za-z]{2}$/.test(country)) {
    throw new CertificateError('INVALID_INPUT', `COUNTRY must be a two-letter code such as US or DE, not "${country}".`);
  }
  const parts: Array<[string, string | undefined]> = [
    ['C', country?.toUpperCase()],
    ['ST', subject.state],
    ['L', subject.locality],
    ['O', subject.org],
    ['OU', subject.orgUnit],
    ['CN', cn],
  ];
  const json: Array<Record<string, string[]>> = [];
  for (const [key, raw] of parts) {
    const value = raw?.trim();
    if (value) json.push({ [key]: [literalDnValue(value)] });
  }
  return new x509.Name(json);
}

/**
 * The x509 library reads a value starting with `#` as hex-encoded DER and drops backslashes
 * and double quotes as escapes: escape them so every value is stored exactly as sent
 * (found by fuzzing: `ORG: "#a"` threw inside the DER encoder).
 */
function literalDnValue(value: string): string {
  return value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/^#/, '\\#');
}

export function buildNameDer(subject: SubjectInput): Buffer {
  return Buffer.from(buildName(subject).toArrayBuffer());
}

/**
 * Parses ALT_NAMES (comma separated, or a list). IPv4/IPv6 literals become iPAddress
 * entries, not DNS names, because TLS clients only match IPs against iPAddress.
 */
export function parseAltNames(altNames: string | string[] | undefined): SanEntry[] {
  const items = (Array.isArray(altNames) ? altNames : (altNames ?? '').split(','))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return dedupe(items.map(classifyAltName));
}

function dedupe(entries: SanEntry[]): SanEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = `${e.type}:${e.value.toLowerCase()}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function classifyAltName(item: string): SanEntry {
  const prefixed = /^(DNS|IP|IP Address|email|URI):(.*)$/i.exec(item);
  const value = prefixed ? prefixed[2].trim() : item;
  const bare = value.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) return { type: 'ip', value: bare };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return { type: 'url', value };
  if (value.includes('@')) return { type: 'email', value };
  if (!isDnsName(value)) {
    throw new CertificateError('INVALID_INPUT', `"${item}" in ALT_NAMES is neither a DNS name nor an IP address.`);
  }
  return { type: 'dns', value: value.toLowerCase() };
}

function isDnsName(value: string): boolean {
  if (value.length > 253) return false;
  const labels = value.split('.');
  return labels.every(
    (label, i) => (i === 0 && label === '*') || /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/.test(label),
  );
}

/**
 * SANs for a new certificate: the common name first when it is a host name or IP (modern
 * TLS clients ignore the CN), then ALT_NAMES.
 */
export function sansFor(commonName: string, altNames: string | string[] | undefined): SanEntry[] {
  const extra = parseAltNames(altNames);
  let first: SanEntry | undefined;
  try {
    first = classifyAltName(commonName.trim());
  } catch {
    return extra;
  }
  return first.type === 'dns' || first.type === 'ip' ? dedupe([first, ...extra]) : extra;
}

export type ValidityType = 'days' | 'hours' | 'minutes';

const UNIT_MS: Record<ValidityType, number> = { days: 86_400_000, hours: 3_600_000, minutes: 60_000 };
const MAX_VALIDITY_MS = 100 * 366 * 86_400_000;

export interface ValidityPeriod {
  notBefore: Date;
  notAfter: Date;
}

export function validityPeriod(
  validity: number | string,
  type: string = 'days',
  now: Date = new Date(),
): ValidityPeriod {
  const unit = type.trim().toLowerCase() as ValidityType;
  // Own keys only: `in` also finds "constructor", the key of every plain object.
  if (!Object.hasOwn(UNIT_MS, unit)) {
    throw new CertificateError('INVALID_INPUT', `VALIDITY_TYPE must be days, hours or minutes, not "${type}".`);
  }
  const amount = Number(validity);
  if (!Number.isInteger(amount) || amount <= 0) {
    throw new CertificateError('INVALID_INPUT', `VALIDITY must be a positive whole number, not "${validity}".`);
  }
  const span = amount * UNIT_MS[unit];
  if (span > MAX_VALIDITY_MS) throw new CertificateError('INVALID_INPUT', 'VALIDITY may not exceed 100 years.');
  // X.509 times have one-second resolution; truncate so notAfter - notBefore is exact.
  const notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return { notBefore, notAfter: new Date(notBefore.getTime() + span) };
}
