import { createPublicKey, KeyObject } from 'node:crypto';
import { KeySpec, resolveKeySpec, resolveSignatureAlgorithm, signatureAlgorithmName, webCryptoSigning } from './algorithms';
import { signatureOidOf } from './der';
import { CertificateError } from './errors';
import { describePublicKey, generateKeyPair, importSigningKey, keySpecOf, loadPrivateKey, toPkcs8Pem } from './keys';
import { NameDetails, nameDetails } from './parse';
import { asText, isPem, pemBlocks, toPem } from './pem';
import { csrParts } from './der-writer';
import { subjectAltName } from './extensions';
import { buildName, SanEntry, sansFor, SanType, SubjectInput } from './subject';
import { subtle, x509 } from './x509';

const SAN_OID = '2.5.29.17';

export interface CsrRequest {
  subject: SubjectInput;
  /** ALT_NAMES: comma separated text or a list. */
  altNames?: string | string[];
  /** ALG (RSA or EC) and LEN; ignored when privateKeyPem is given. */
  keyAlgorithm?: string;
  keyLength?: number | string;
  /** SIGALG, e.g. SHA256withRSA; defaults to one that fits the key. */
  signatureAlgorithm?: string;
  /** Sign the request with an existing key instead of generating one. */
  privateKeyPem?: string;
  privateKeyPassword?: string;
}

export interface CreatedCsr {
  csrPem: string;
  /** Unencrypted PKCS#8 PEM. */
  privateKeyPem: string;
  keySpec: KeySpec;
  signatureAlgorithm: string;
  sans: SanEntry[];
}

export interface CsrDetails {
  subject: NameDetails;
  commonName: string;
  sans: string[];
  sanEntries: SanEntry[];
  keyAlgorithm: string;
  keyLength: number;
  signatureAlgorithm: string;
}

export interface ParsedCsr {
  details: CsrDetails;
  publicKey: KeyObject;
  /** Subject Name and SubjectPublicKeyInfo exactly as encoded in the request, reused when signing. */
  subjectDer: Buffer;
  spkiDer: Buffer;
  sanEntries: SanEntry[];
  der: Buffer;
  csrPem: string;
}

export async function createCsr(request: CsrRequest): Promise<CreatedCsr> {
  const name = buildName(request.subject);
  const sans = sansFor(request.subject.commonName, request.altNames);
  let privateKeyPem: string;
  let spec: KeySpec;
  if (request.privateKeyPem) {
    const key = loadPrivateKey(request.privateKeyPem, request.privateKeyPassword);
    spec = keySpecOf(key);
    privateKeyPem = toPkcs8Pem(key);
  } else {
    spec = resolveKeySpec(request.keyAlgorithm, request.keyLength);
    privateKeyPem = (await generateKeyPair(spec)).privateKeyPem;
  }
  const sig = resolveSignatureAlgorithm(request.signatureAlgorithm, spec);
  const privateKey = loadPrivateKey(privateKeyPem);
  const signingKey = await importSigningKey(privateKey, sig);
  const publicKey = await subtle.importKey(
    'spki',
    createPublicKey(privateKey).export({ type: 'spki', format: 'der' }),
    signingKey.algorithm,
    true,
    ['verify'],
  );
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys: { privateKey: signingKey, publicKey },
    signingAlgorithm: webCryptoSigning(sig),
    extensions: sans.length ? [new x509.Extension(subjectAltName(sans))] : [],
  });
  return { csrPem: csr.toString('pem') + '\n', privateKeyPem, keySpec: spec, signatureAlgorithm: sig, sans };
}

/** Parses a PKCS#10 request (PEM or DER) and refuses it unless its self-signature verifies. */
export async function parseCsr(input: string | Buffer): Promise<ParsedCsr> {
  const der = csrDer(input);
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(der);
  } catch {
    throw new CertificateError('INVALID_INPUT', 'The CSR could not be parsed; expected a PKCS#10 request in PEM or DER.');
  }
  let verified = false;
  try {
    verified = await csr.verify();
  } catch {
    verified = false;
  }
  if (!verified) {
    throw new CertificateError('INVALID_SIGNATURE', 'The CSR signature does not verify; the request was altered or is corrupt.');
  }
  const publicKey = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
  const key = describePublicKey(publicKey);
  const sanRaw = csr.extensions.find((e) => e.type === SAN_OID);
  const san = sanRaw ? new x509.SubjectAlternativeNameExtension(sanRaw.rawData) : undefined;
  const sanEntries: SanEntry[] = (san?.names.items ?? [])
    .filter((n) => ['dns', 'ip', 'email', 'url'].includes(n.type))
    .map((n) => ({ type: n.type as SanType, value: n.value }));
  const subject = nameDetails(csr.subjectName);
  return {
    details: {
      subject,
      commonName: subject.cname,
      sans: sanEntries.map((e) => e.value),
      sanEntries,
      keyAlgorithm: key.algorithm,
      keyLength: key.length,
      signatureAlgorithm: signatureAlgorithmName(signatureOidOf(der)),
    },
    publicKey,
    ...csrParts(der),
    sanEntries,
    der,
    csrPem: toPem(der, 'CERTIFICATE REQUEST'),
  };
}

function csrDer(input: string | Buffer): Buffer {
  if (!isPem(input)) return Buffer.from(input);
  const block = pemBlocks(asText(input)).find((b) => b.label === 'CERTIFICATE REQUEST' || b.label === 'NEW CERTIFICATE REQUEST');
  if (!block) throw new CertificateError('INVALID_INPUT', 'No "CERTIFICATE REQUEST" PEM block found.');
  return block.der;
}
