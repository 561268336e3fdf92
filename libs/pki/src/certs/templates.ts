import { KeyAlgorithm } from './algorithms';
import { CertificateError } from './errors';
import { x509 } from './x509';

export type TemplateName = 'WebServer' | 'ClientAuthentication' | 'CodeSigning';

export interface CertificateTemplate {
  name: TemplateName;
  extendedKeyUsages: string[];
  /** Key usage for an RSA subject key; EC keys cannot encipher, so keyEncipherment becomes keyAgreement. */
  keyUsage: number;
}

const F = x509.KeyUsageFlags;

export const TEMPLATES: Record<TemplateName, CertificateTemplate> = {
  WebServer: {
    name: 'WebServer',
    extendedKeyUsages: [x509.ExtendedKeyUsage.serverAuth],
    keyUsage: F.digitalSignature | F.keyEncipherment,
  },
  ClientAuthentication: {
    name: 'ClientAuthentication',
    extendedKeyUsages: [x509.ExtendedKeyUsage.clientAuth],
    keyUsage: F.digitalSignature | F.keyEncipherment,
  },
  CodeSigning: {
    name: 'CodeSigning',
    extendedKeyUsages: [x509.ExtendedKeyUsage.codeSigning],
    keyUsage: F.digitalSignature,
  },
};

// Keys are template names lowercased with spaces, dashes and underscores removed.
const ALIASES: Record<string, TemplateName> = {
  webserver: 'WebServer',
  server: 'WebServer',
  serverauth: 'WebServer',
  serverauthentication: 'WebServer',
  sslserver: 'WebServer',
  tlsserver: 'WebServer',
  clientauthentication: 'ClientAuthentication',
  clientauth: 'ClientAuthentication',
  client: 'ClientAuthentication',
  sslclient: 'ClientAuthentication',
  tlsclient: 'ClientAuthentication',
  user: 'ClientAuthentication',
  codesigning: 'CodeSigning',
  codesign: 'CodeSigning',
  code: 'CodeSigning',
};

export function resolveTemplate(name: string | undefined): CertificateTemplate {
  const key = (name ?? 'WebServer').toLowerCase().replace(/[\s_-]+/g, '');
  const found = ALIASES[key];
  if (!found) {
    throw new CertificateError(
      'UNKNOWN_TEMPLATE',
      `Certificate template "${name}" is not known; use one of ${Object.keys(TEMPLATES).join(', ')}.`,
    );
  }
  return TEMPLATES[found];
}

export function templateExtensions(template: CertificateTemplate, subjectKey: KeyAlgorithm): x509.Extension[] {
  let usage = template.keyUsage;
  if (subjectKey === 'EC' && usage & F.keyEncipherment) usage = (usage & ~F.keyEncipherment) | F.keyAgreement;
  return [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(usage, true),
    new x509.ExtendedKeyUsageExtension(template.extendedKeyUsages, false),
  ];
}

export function caExtensions(pathLength?: number): x509.Extension[] {
  return [
    new x509.BasicConstraintsExtension(true, pathLength, true),
    new x509.KeyUsagesExtension(F.keyCertSign | F.cRLSign | F.digitalSignature, true),
  ];
}
