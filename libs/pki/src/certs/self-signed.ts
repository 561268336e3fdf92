import { createPublicKey } from 'node:crypto';
import { KeySpec, resolveKeySpec, resolveSignatureAlgorithm } from './algorithms';
import { buildCertificate, spkiOf } from './build';
import { authorityKeyIdentifier, keyIdentifierOf, subjectAltName, subjectKeyIdentifier } from './extensions';
import { generateKeyPair, keySpecOf, loadPrivateKey, toPkcs8Pem } from './keys';
import { buildNameDer, sansFor, SubjectInput, ValidityPeriod, validityPeriod } from './subject';
import { resolveTemplate, templateExtensions } from './templates';

export interface SelfSignedRequest {
  subject: SubjectInput;
  altNames?: string | string[];
  keyAlgorithm?: string;
  keyLength?: number | string;
  signatureAlgorithm?: string;
  /** Default: 365 days from now. */
  validity?: ValidityPeriod;
  /** Defaults to WebServer. */
  template?: string;
  privateKeyPem?: string;
  privateKeyPassword?: string;
}

export interface SelfSignedCertificate {
  certPem: string;
  /** Unencrypted PKCS#8 PEM. */
  privateKeyPem: string;
  serialNumber: string;
  keySpec: KeySpec;
  signatureAlgorithm: string;
}

/** createCertificate: a self-signed end-entity certificate with its own new (or given) key. */
export async function createSelfSignedCertificate(request: SelfSignedRequest): Promise<SelfSignedCertificate> {
  const template = resolveTemplate(request.template);
  const nameDer = buildNameDer(request.subject);
  const sans = sansFor(request.subject.commonName, request.altNames);
  const privateKeyPem = request.privateKeyPem
    ? toPkcs8Pem(loadPrivateKey(request.privateKeyPem, request.privateKeyPassword))
    : (await generateKeyPair(resolveKeySpec(request.keyAlgorithm, request.keyLength))).privateKeyPem;
  const privateKey = loadPrivateKey(privateKeyPem);
  const spec = keySpecOf(privateKey);
  const sig = resolveSignatureAlgorithm(request.signatureAlgorithm, spec);
  const spkiDer = spkiOf(createPublicKey(privateKey));
  const keyId = keyIdentifierOf(spkiDer);
  const built = await buildCertificate(
    {
      subjectDer: nameDer,
      issuerDer: nameDer,
      spkiDer,
      validity: request.validity ?? validityPeriod(365, 'days'),
      extensions: [
        ...templateExtensions(template, spec.algorithm),
        subjectKeyIdentifier(keyId),
        authorityKeyIdentifier(keyId),
        ...(sans.length ? [subjectAltName(sans)] : []),
      ],
    },
    { key: privateKey, signatureAlgorithm: sig },
  );
  return { certPem: built.certPem, privateKeyPem, serialNumber: built.serialNumber, keySpec: spec, signatureAlgorithm: sig };
}

/**
 * The certificate a CSR's key store holds until the signed one replaces it (exportCSR's
 * KeyStore): self-signed with the request's own key, subject and public key exactly as the
 * request encodes them, as `keytool -genkeypair` keeps one beside a pending request.
 */
export async function placeholderCertificate(request: { subjectDer: Buffer; spkiDer: Buffer }, privateKeyPem: string): Promise<string> {
  const privateKey = loadPrivateKey(privateKeyPem);
  const sig = resolveSignatureAlgorithm(undefined, keySpecOf(privateKey));
  const built = await buildCertificate(
    {
      subjectDer: request.subjectDer,
      issuerDer: request.subjectDer,
      spkiDer: request.spkiDer,
      validity: validityPeriod(90, 'days'),
      extensions: [subjectKeyIdentifier(keyIdentifierOf(request.spkiDer))],
    },
    { key: privateKey, signatureAlgorithm: sig },
  );
  return built.certPem;
}
