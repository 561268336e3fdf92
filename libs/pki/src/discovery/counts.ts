import type { VulnerabilityRecord } from './scan-endpoint';

export interface VulnerabilityCounts {
  'Weak Cipher Suites': number;
  'Poodle SSL': number;
  Revoked: number;
  'SSLv3 Enabled': number;
  'No TLS1.2': number;
  Heartbleed: number;
}

/** Number of endpoints affected by each vulnerability (an unknown revocation status does not count). */
export function countVulnerabilities(records: readonly VulnerabilityRecord[]): VulnerabilityCounts {
  const count = (affected: (record: VulnerabilityRecord) => boolean) => records.filter(affected).length;
  return {
    'Weak Cipher Suites': count((r) => r.weakCiphers.length > 0),
    'Poodle SSL': count((r) => r.poodle),
    Revoked: count((r) => r.revoked === true),
    'SSLv3 Enabled': count((r) => r.sslv3),
    'No TLS1.2': count((r) => r.noTls12),
    Heartbleed: count((r) => r.heartbleed),
  };
}
