import { countVulnerabilities } from './counts';
import { VulnerabilityRecord } from './scan-endpoint';

const clean: VulnerabilityRecord = {
  weakCiphers: [],
  sslv3: false,
  poodle: false,
  noTls12: false,
  heartbleed: false,
  revoked: false,
  protocols: { SSLv3: false, TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': true },
  checkedAt: '2026-01-01T00:00:00.000Z',
};

describe('countVulnerabilities', () => {
  it('counts affected endpoints per vulnerability; unknown revocation is not counted', () => {
    const records: VulnerabilityRecord[] = [
      clean,
      { ...clean, weakCiphers: ['TLS_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_NULL_SHA'], noTls12: true },
      { ...clean, sslv3: true, poodle: true, revoked: null },
      { ...clean, sslv3: true, heartbleed: true, revoked: true, weakCiphers: ['TLS_RSA_WITH_3DES_EDE_CBC_SHA'] },
    ];
    expect(countVulnerabilities(records)).toEqual({
      'Weak Cipher Suites': 2,
      'Poodle SSL': 1,
      Revoked: 1,
      'SSLv3 Enabled': 2,
      'No TLS1.2': 1,
      Heartbleed: 1,
    });
    expect(countVulnerabilities([])).toEqual({ 'Weak Cipher Suites': 0, 'Poodle SSL': 0, Revoked: 0, 'SSLv3 Enabled': 0, 'No TLS1.2': 0, Heartbleed: 0 });
  });
});
