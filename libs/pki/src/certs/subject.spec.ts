import { resolveKeySpec, resolveSignatureAlgorithm } from './algorithms';
import { decryptPrivateKeyPem, encryptPrivateKeyPem, generateKeyPair } from './keys';
import { normaliseSerial, randomSerialHex } from './serial';
import { buildName, parseAltNames, sansFor, validityPeriod } from './subject';
import { resolveTemplate } from './templates';
import { ipBytes } from './extensions';
import { x509 } from './x509';

describe('subject, SANs and validity', () => {
  it('stores subject values exactly as sent, even with a leading #, backslashes or quotes (found by fuzzing)', () => {
    for (const value of ['#a', '#', '#00', 'a\\b', '"quoted"', 'x\\', 'a,b+c']) {
      const der = Buffer.from(buildName({ commonName: 'cn', org: value }).toArrayBuffer());
      const parsed = new x509.Name(der).toJSON();
      expect(parsed.find((rdn) => rdn.O)?.O).toEqual([value]);
    }
  });

  it('classifies ALT_NAMES into DNS, IP, e-mail and URI entries', () => {
    expect(parseAltNames(' a.example.com,10.0.0.1 , [2001:db8::1], DNS:*.example.com, me@example.com, https://x.example.com/p,a.example.com')).toEqual([
      { type: 'dns', value: 'a.example.com' },
      { type: 'ip', value: '10.0.0.1' },
      { type: 'ip', value: '2001:db8::1' },
      { type: 'dns', value: '*.example.com' },
      { type: 'email', value: 'me@example.com' },
      { type: 'url', value: 'https://x.example.com/p' },
    ]);
    expect(() => parseAltNames('bad name!')).toThrow(/neither a DNS name nor an IP address/);
    expect(sansFor('My Server', 'a.example.com')).toEqual([{ type: 'dns', value: 'a.example.com' }]);
  });

  it('encodes IPv6 addresses', () => {
    expect(ipBytes('2001:db8::1').toString('hex')).toBe('20010db8000000000000000000000001');
    expect(ipBytes('::ffff:192.0.2.1').toString('hex')).toBe('00000000000000000000ffffc0000201');
    expect(ipBytes('::').toString('hex')).toBe('0'.repeat(32));
  });

  it('validates the name fields', () => {
    expect(() => buildName({ commonName: '' })).toThrow(/CNAME\) is required/);
    expect(() => buildName({ commonName: 'x', country: 'USA' })).toThrow(/COUNTRY must be a two-letter code/);
    expect(buildName({ commonName: 'x', country: 'us' }).toString()).toBe('C=US, CN=x');
  });

  it('computes validity in days, hours and minutes', () => {
    const now = new Date('2026-03-01T10:00:00.750Z');
    expect(validityPeriod(2, 'hours', now)).toEqual({ notBefore: new Date('2026-03-01T10:00:00Z'), notAfter: new Date('2026-03-01T12:00:00Z') });
    expect(validityPeriod('30', 'Days', now).notAfter).toEqual(new Date('2026-03-31T10:00:00Z'));
    expect(() => validityPeriod(5, 'weeks')).toThrow(/days, hours or minutes/);
    for (const unit of ['constructor', '__proto__', 'toString']) expect(() => validityPeriod(5, unit)).toThrow(/days, hours or minutes/);
    expect(() => validityPeriod(0)).toThrow(/positive whole number/);
  });
});

describe('algorithms, templates, serials and keys', () => {
  it('resolves key specs and signature algorithms', () => {
    expect(resolveKeySpec('ecdsa', '384')).toEqual({ algorithm: 'EC', length: 384 });
    expect(resolveKeySpec(undefined, undefined)).toEqual({ algorithm: 'RSA', length: 2048 });
    expect(resolveSignatureAlgorithm('sha384WithRSAEncryption', { algorithm: 'RSA', length: 2048 })).toBe('SHA384withRSA');
    expect(resolveSignatureAlgorithm('ecdsa-with-SHA512', { algorithm: 'EC', length: 521 })).toBe('SHA512withECDSA');
    expect(resolveSignatureAlgorithm(undefined, { algorithm: 'EC', length: 384 })).toBe('SHA384withECDSA');
  });

  it('matches template names case-insensitively with aliases', () => {
    for (const name of ['WebServer', 'Web Server', 'webserver', 'web_server']) expect(resolveTemplate(name).name).toBe('WebServer');
    expect(resolveTemplate('Client Authentication').name).toBe('ClientAuthentication');
    expect(resolveTemplate('Code-Signing').name).toBe('CodeSigning');
    expect(() => resolveTemplate('Nope')).toThrow(/use one of WebServer, ClientAuthentication, CodeSigning/);
    for (const name of ['constructor', '__proto__']) expect(() => resolveTemplate(name)).toThrow(/use one of WebServer/);
  });

  it('makes 16-byte positive serials and normalises serial text', () => {
    const serial = randomSerialHex();
    expect(serial).toMatch(/^[0-7][0-9A-F]{31}$/);
    expect(serial.slice(0, 2)).not.toBe('00');
    expect(normaliseSerial('00:ab:CD')).toBe('ABCD');
  });

  it('encrypts and decrypts PKCS#8 keys with a password, never echoing it', async () => {
    const { privateKeyPem } = await generateKeyPair({ algorithm: 'EC', length: 256 });
    const encrypted = encryptPrivateKeyPem(privateKeyPem, 'pa55word');
    expect(encrypted).toContain('ENCRYPTED PRIVATE KEY');
    expect(decryptPrivateKeyPem(encrypted, 'pa55word')).toBe(privateKeyPem);
    let message = '';
    try {
      decryptPrivateKeyPem(encrypted, 'wrong-pa55');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('The private key password is wrong.');
    expect(() => decryptPrivateKeyPem(encrypted)).toThrow(/encrypted; give its password/);
  });
});
