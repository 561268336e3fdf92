import { createHash } from 'node:crypto';
import { x509 } from '../certs';
import { canonicalIp, Identifier } from './identifiers';
import { AcmeProblem } from './problem';

/** id-pe-acmeIdentifier (RFC 8737 §3). */
export const ACME_IDENTIFIER_OID = '1.3.6.1.5.5.7.1.31';
export const ACME_TLS_ALPN = 'acme-tls/1';

/**
 * RFC 8737 §3: the self-signed certificate served for acme-tls/1 names exactly the
 * identifier and carries a critical acmeIdentifier extension holding SHA-256(keyAuthorization).
 */
export function checkAlpnCertificate(der: Buffer, id: Identifier, keyAuthorization: string): void {
  const fail = (detail: string) => new AcmeProblem('incorrectResponse', detail, 403, id);
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(der);
  } catch {
    throw fail('The tls-alpn-01 certificate could not be parsed');
  }
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  // An address written as a dNSName (older lego) counts as the address: the digest is what proves control.
  const names = (san?.names.items ?? []).map((n) => {
    const ip = n.type === 'ip' || n.type === 'dns' ? canonicalIp(n.value) : undefined;
    return ip ? { type: 'ip', value: ip } : { type: n.type, value: n.value.toLowerCase() };
  });
  if (names.length !== 1 || names[0].type !== id.type || names[0].value !== id.value) {
    throw fail(`The tls-alpn-01 certificate must name exactly ${id.value} in its subjectAltName`);
  }
  const ext = cert.extensions.find((e) => e.type === ACME_IDENTIFIER_OID);
  if (!ext) throw fail('The tls-alpn-01 certificate lacks the acmeIdentifier extension');
  if (!ext.critical) throw fail('The acmeIdentifier extension must be critical');
  const expected = Buffer.concat([Buffer.from([0x04, 0x20]), createHash('sha256').update(keyAuthorization).digest()]);
  if (!Buffer.from(ext.value).equals(expected)) throw fail('The acmeIdentifier extension does not hold the expected key authorization digest');
}

/** RFC 8738 §6: the SNI for an IP identifier is its reverse-DNS name. */
export function alpnServerName(id: Identifier): string {
  if (id.type === 'dns') return id.value;
  if (id.value.includes(':')) {
    const hex = Buffer.from(expandIpv6(id.value)).toString('hex');
    return `${[...hex].reverse().join('.')}.ip6.arpa`;
  }
  return `${id.value.split('.').reverse().join('.')}.in-addr.arpa`;
}

function expandIpv6(ip: string): number[] {
  const [head, tail] = ip.split('::');
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const groups = [...part(head), ...Array(8 - part(head).length - part(tail).length).fill('0'), ...part(tail)];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}
