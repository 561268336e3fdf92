import { KeyAlgorithm } from './algorithms';
import { CertificateError } from './errors';
import { basicConstraints, EKU_OIDS, extendedKeyUsage, keyUsage, KeyUsageName } from './extensions';

export type TemplateName = 'WebServer' | 'ClientAuthentication' | 'CodeSigning';

export interface CertificateTemplate {
  name: TemplateName;
  extendedKeyUsages: string[];
  /** Key usage for an RSA subject key; EC keys cannot encipher, so keyEncipherment becomes keyAgreement. */
  keyUsages: KeyUsageName[];
}

export const TEMPLATES: Record<TemplateName, CertificateTemplate> = {
  WebServer: {
    name: 'WebServer',
    extendedKeyUsages: [EKU_OIDS.serverAuth],
    keyUsages: ['digitalSignature', 'keyEncipherment'],
  },
  ClientAuthentication: {
    name: 'ClientAuthentication',
    extendedKeyUsages: [EKU_OIDS.clientAuth],
    keyUsages: ['digitalSignature', 'keyEncipherment'],
  },
  CodeSigning: {
    name: 'CodeSigning',
    extendedKeyUsages: [EKU_OIDS.codeSigning],
    keyUsages: ['digitalSignature'],
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
  // Own keys only: "constructor" is a key of every plain object.
  const found = Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
  if (!found) {
    throw new CertificateError(
      'UNKNOWN_TEMPLATE',
      `Certificate template "${name}" is not known; use one of ${Object.keys(TEMPLATES).join(', ')}.`,
    );
  }
  return TEMPLATES[found];
}

const cache = new Map<string, Buffer[]>();

/** Extension DERs for a leaf of this template; they never vary, so they are encoded once. */
export function templateExtensions(template: CertificateTemplate, subjectKey: KeyAlgorithm): Buffer[] {
  const cacheKey = `${template.name}/${subjectKey}`;
  let extensions = cache.get(cacheKey);
  if (!extensions) {
    const usages = template.keyUsages.map((u) => (subjectKey === 'EC' && u === 'keyEncipherment' ? 'keyAgreement' : u));
    extensions = [basicConstraints(false), keyUsage(usages), extendedKeyUsage(template.extendedKeyUsages)];
    cache.set(cacheKey, extensions);
  }
  return extensions;
}

export function caExtensions(pathLength?: number): Buffer[] {
  return [basicConstraints(true, pathLength), keyUsage(['digitalSignature', 'keyCertSign', 'cRLSign'])];
}
