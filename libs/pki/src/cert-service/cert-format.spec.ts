import { certListDate, certTime, fileNameFor } from './cert-format';
import { passphraseMessage } from './certificate-export.service';
import { listEntry } from './certificate-view';
import { ListEntryRow } from './certificate.repository';

describe('certificate presentation helpers', () => {
  it('formats dates as yyyy-mm-dd hh:mm:ss.f in the server time zone', () => {
    expect(certTime(new Date(2024, 0, 5, 7, 8, 9, 870))).toBe('2024-01-05 07:08:09.8');
  });

  it('formats list dates as MMM d, yyyy like the original lists (Aug 27, 2022)', () => {
    expect(certListDate(new Date(2022, 7, 27, 23, 59))).toBe('Aug 27, 2022');
    expect(certListDate(new Date(2024, 0, 5))).toBe('Jan 5, 2024');
  });

  it.each([
    ['web.example.com', '.pem', 'web.example.com.pem'],
    ['*.example.com', '.p12', 'wildcard.example.com.p12'],
    ['../../etc/passwd', '.crt', 'etc_passwd.crt'],
    ['Team "CA" \r\n', '.jks', 'Team_CA.jks'],
    ['', '.der', 'certificate.der'],
  ])('file name for %j', (cn, suffix, expected) => {
    expect(fileNameFor(cn, suffix)).toBe(expected);
  });

  it('puts the passphrase last in the message (docs/api/pki.md)', () => {
    expect(passphraseMessage('a.example', 'S3cret').split(' ').pop()).toBe('S3cret');
  });

  it('lists a certificate found nowhere under its common name on 443, and the issuer by its CN', () => {
    const row = {
      id: 7, common_name: 'a.example', issuer: 'CN=Issuing\\, Inc, O=X', not_before: new Date(2022, 7, 27, 12), not_after: new Date(0), key_length: 256,
      serial_number: '0a1b', signature_algorithm: 'SHA256withECDSA', created_by_name: 'admin', notification_email: '', host: null, port: null,
    } as unknown as ListEntryRow;
    expect(listEntry(row)).toMatchObject({ CertID: 7, 'DNS Name/FQDN': 'a.example', Port: 443, Issuer: 'Issuing, Inc', KeyStrength: '256', serialNumber: '0a1b', FromDate: 'Aug 27, 2022' });
  });
});
