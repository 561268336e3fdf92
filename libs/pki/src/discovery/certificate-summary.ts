import { X509Certificate } from 'node:crypto';

/** The one-line message shown per discovered endpoint, e.g. `Certificate found: CN=example, expires 2027-01-01`. */
export function summarizeCertificate(der: Buffer): string {
  const cert = new X509Certificate(der);
  const cn = cert.subject
    .split('\n')
    .find((line) => line.startsWith('CN='));
  const subject = cn ?? (cert.subject.replace(/\n/g, ', ') || 'no subject');
  const expires = new Date(cert.validTo).toISOString().slice(0, 10);
  return `Certificate found: ${subject}, expires ${expires}`;
}
