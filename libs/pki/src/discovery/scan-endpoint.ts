import { LookupFunction } from 'node:net';
import { fetchCertificateChain } from './fetch-chain';
import { probeHeartbleed } from './probes/heartbleed';
import { ProtocolSupport, probeProtocol, TLS_PROTOCOLS } from './probes/protocols';
import { probeSslv3, Sslv3Result } from './probes/sslv3';
import { probeWeakCiphers } from './probes/weak-ciphers';
import { checkRevocation, RevocationOptions } from './revocation/check-revocation';

/** Stored per endpoint; `countVulnerabilities` aggregates these for the API. */
export interface VulnerabilityRecord {
  /** IANA names of the weak suites the server accepted. */
  weakCiphers: string[];
  sslv3: boolean;
  poodle: boolean;
  /** Neither TLS 1.2 nor TLS 1.3 negotiated (only set when those probes ran cleanly). */
  noTls12: boolean;
  heartbleed: boolean;
  /** null when revocation could not be determined. */
  revoked: boolean | null;
  protocols: ProtocolSupport;
  /** ISO 8601. */
  checkedAt: string;
  /** Probes that could not complete; their fields keep the not-vulnerable default. */
  errors?: string[];
}

export interface ScanTarget {
  host: string;
  port: number;
  /** Per connection; each probe opens its own connections. */
  timeoutMs: number;
  lookup?: LookupFunction;
}

/**
 * Runs every probe against one endpoint concurrently. A probe that fails (refused,
 * timed out, not TLS) reports into `errors` instead of failing the whole record.
 */
export async function scanEndpoint(target: ScanTarget, revocation: RevocationOptions = {}): Promise<VulnerabilityRecord> {
  const errors: string[] = [];
  async function attempt<T>(label: string, probe: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await probe();
    } catch (error) {
      errors.push(`${label}: ${(error as Error).message}`);
      return fallback;
    }
  }
  const [weakCiphers, sslv3, heartbleed, revoked, ...tls] = await Promise.all([
    attempt('Weak ciphers', () => probeWeakCiphers(target), [] as string[]),
    attempt<Sslv3Result>('SSLv3', () => probeSslv3(target), { sslv3: false, poodle: false }),
    attempt('Heartbleed', () => probeHeartbleed(target), false),
    attempt('Revocation', () => revocationStatus(target, revocation, errors), null as boolean | null),
    ...TLS_PROTOCOLS.map((version) => attempt<boolean | null>(version, () => probeProtocol(target, version), null)),
  ]);
  const protocols = Object.fromEntries(TLS_PROTOCOLS.map((version, i) => [version, tls[i] === true])) as ProtocolSupport;
  protocols.SSLv3 = sslv3.sslv3;
  const modernKnown = tls[2] !== null && tls[3] !== null;
  return {
    weakCiphers,
    sslv3: sslv3.sslv3,
    poodle: sslv3.poodle,
    noTls12: modernKnown && !protocols['TLSv1.2'] && !protocols['TLSv1.3'],
    heartbleed,
    revoked,
    protocols,
    checkedAt: new Date().toISOString(),
    ...(errors.length ? { errors } : {}),
  };
}

async function revocationStatus(target: ScanTarget, options: RevocationOptions, errors: string[]): Promise<boolean | null> {
  const { chain } = await fetchCertificateChain(target);
  const result = await checkRevocation(chain[0]!, chain[1], options);
  errors.push(...result.errors);
  return result.revoked;
}
