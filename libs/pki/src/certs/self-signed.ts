import { createPublicKey } from 'node:crypto';
import { KeySpec, resolveKeySpec, resolveSignatureAlgorithm } from './algorithms';
import { buildCertificate, keyIdentifier, keyIdentifierExtensions } from './build';
import { generateKeyPair, importSigningKey, keySpecOf, loadPrivateKey, toPkcs8Pem } from './keys';
import { buildName, sanExtension, sansFor, SubjectInput, ValidityPeriod, validityPeriod } from './subject';
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
  const privateKeyPem = request.privateKeyPem
    ? toPkcs8Pem(loadPrivateKey(request.privateKeyPem, request.privateKeyPassword))
    : (await generateKeyPair(resolveKeySpec(request.keyAlgorithm, request.keyLength))).privateKeyPem;
  const privateKey = loadPrivateKey(privateKeyPem);
  const spec = keySpecOf(privateKey);
  const sig = resolveSignatureAlgorithm(request.signatureAlgorithm, spec);
  const publicKey = createPublicKey(privateKey);
  const name = buildName(request.subject);
  const keyId = await keyIdentifier(publicKey);
  const san = sanExtension(sansFor(request.subject.commonName, request.altNames));
  const built = await buildCertificate(
    {
      subjectName: name,
      issuerName: name,
      publicKey,
      validity: request.validity ?? validityPeriod(365, 'days'),
      extensions: [
        ...templateExtensions(template, spec.algorithm),
        ...keyIdentifierExtensions(keyId, keyId),
        ...(san ? [san] : []),
      ],
    },
    { key: await importSigningKey(privateKey, sig), signatureAlgorithm: sig },
  );
  return { certPem: built.certPem, privateKeyPem, serialNumber: built.serialNumber, keySpec: spec, signatureAlgorithm: sig };
}
