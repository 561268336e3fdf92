import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alpnServerName, checkAlpnCertificate } from './tls-alpn';

/** A tls-alpn-01 response certificate made by openssl, as a client would serve it. */
function challengeCert(san: string, keyAuthorization: string, critical = true): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'alpn-'));
  const digest = createHash('sha256').update(keyAuthorization).digest('hex');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=acme', '-days', '1',
    '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.der'), '-outform', 'DER',
    '-addext', `subjectAltName=${san}`, '-addext', `1.3.6.1.5.5.7.1.31=${critical ? 'critical,' : ''}DER:0420${digest}`,
  ], { stdio: 'ignore' });
  return readFileSync(join(dir, 'c.der'));
}

describe('tls-alpn-01 certificate check', () => {
  it('accepts the right name and digest, refuses another name, digest or a non-critical extension', () => {
    const id = { type: 'dns' as const, value: 'a.example.com' };
    expect(() => checkAlpnCertificate(challengeCert('DNS:a.example.com', 'tok.thumb'), id, 'tok.thumb')).not.toThrow();
    expect(() => checkAlpnCertificate(challengeCert('DNS:b.example.com', 'tok.thumb'), id, 'tok.thumb')).toThrow(/exactly a.example.com/);
    expect(() => checkAlpnCertificate(challengeCert('DNS:a.example.com', 'tok.other'), id, 'tok.thumb')).toThrow(/digest/);
    expect(() => checkAlpnCertificate(challengeCert('DNS:a.example.com', 'tok.thumb', false), id, 'tok.thumb')).toThrow(/critical/);
    expect(() => checkAlpnCertificate(challengeCert('IP:127.0.0.1', 'k'), { type: 'ip', value: '127.0.0.1' }, 'k')).not.toThrow();
  });

  it('uses the reverse-DNS name as SNI for addresses (RFC 8738 §6)', () => {
    expect(alpnServerName({ type: 'ip', value: '127.0.0.1' })).toBe('1.0.0.127.in-addr.arpa');
    expect(alpnServerName({ type: 'ip', value: '2001:db8::1' })).toBe(`1.0.0.0.${'0.'.repeat(20)}8.b.d.0.1.0.0.2.ip6.arpa`);
    expect(alpnServerName({ type: 'dns', value: 'a.example.com' })).toBe('a.example.com');
  });
});
