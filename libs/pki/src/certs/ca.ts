import { createPublicKey, KeyObject, X509Certificate as NodeCertificate } from 'node:crypto';
import {
  KeySpec,
  resolveKeySpec,
  resolveSignatureAlgorithm,
  SignatureAlgorithm,
  defaultSignatureAlgorithm,
} from './algorithms';
import { buildCertificate, crlDistributionPoint, keyIdentifier, keyIdentifierExtensions } from './build';
import { parseCsr, ParsedCsr } from './csr';
import { CertificateError } from './errors';
import { generateKeyPair, importSigningKey, keySpecOf, loadPrivateKey, publicKeyMatches } from './keys';
import { readCertificatePems } from './parse';
import { buildName, sanExtension, SanEntry, SubjectInput, ValidityPeriod, validityPeriod } from './subject';
import { caExtensions, resolveTemplate, templateExtensions } from './templates';
import { CryptoKey, x509 } from './x509';

export interface CaMaterial {
  certPem: string;
  privateKeyPem: string;
  privateKeyPassword?: string;
  /** Issuers above this CA, nearest first, ending at the root. */
  chainPems?: string[];
}

export interface IssueOptions {
  /** Validity in days (default 365); `validity` wins when both are given. */
  validityDays?: number;
  validity?: ValidityPeriod;
  /** Certificate profile for leaf certificates; ignored for intermediates. */
  template?: string;
  /** Issue a subordinate CA certificate instead of a leaf. */
  isIntermediate?: boolean;
  /** pathLenConstraint for a subordinate CA; defaults to one less than this CA's. */
  pathLength?: number;
  crlDistributionPointUrl?: string;
  /** Defaults to SHA-256 for RSA, and the curve-matching hash for EC CA keys. */
  signatureAlgorithm?: string;
}

export interface SubjectToIssue {
  subjectName: x509.Name;
  publicKey: KeyObject;
  sans?: SanEntry[];
}

export interface IssuedCertificate {
  certPem: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  /** Issuer chain of the new certificate: this CA first, up to the root. */
  chainPems: string[];
}

/**
 * A loaded CA: certificate, parsed once, and its private key imported into WebCrypto
 * once per hash, so signing many certificates costs one native signature each.
 */
export class CertificateAuthority {
  private readonly signingKeys = new Map<SignatureAlgorithm, Promise<CryptoKey>>();

  private constructor(
    readonly certPem: string,
    readonly chainPems: string[],
    readonly keySpec: KeySpec,
    private readonly cert: x509.X509Certificate,
    private readonly privateKey: KeyObject,
    readonly keyId: string,
  ) {}

  static async load(material: CaMaterial): Promise<CertificateAuthority> {
    const [certPem] = readCertificatePems(material.certPem);
    const nodeCert = new NodeCertificate(certPem);
    const cert = new x509.X509Certificate(certPem);
    const basic = cert.getExtension(x509.BasicConstraintsExtension);
    if (!basic?.ca) {
      throw new CertificateError('NOT_A_CA', `Certificate "${nodeCert.subject.replace(/\n/g, ', ')}" is not a CA certificate (basicConstraints CA:false).`);
    }
    const usage = cert.getExtension(x509.KeyUsagesExtension);
    if (usage && !(usage.usages & x509.KeyUsageFlags.keyCertSign)) {
      throw new CertificateError('NOT_A_CA', 'The CA certificate does not allow certificate signing (keyUsage lacks keyCertSign).');
    }
    const privateKey = loadPrivateKey(material.privateKeyPem, material.privateKeyPassword);
    if (!publicKeyMatches(privateKey, nodeCert.publicKey)) {
      throw new CertificateError('INVALID_INPUT', 'The CA private key does not belong to the CA certificate.');
    }
    const keyId = cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ?? (await keyIdentifier(nodeCert.publicKey));
    return new CertificateAuthority(
      certPem,
      (material.chainPems ?? []).flatMap((p) => readCertificatePems(p)),
      keySpecOf(privateKey),
      cert,
      privateKey,
      keyId,
    );
  }

  get subjectName(): x509.Name {
    return this.cert.subjectName;
  }

  get notAfter(): Date {
    return this.cert.notAfter;
  }

  get pathLength(): number | undefined {
    return this.cert.getExtension(x509.BasicConstraintsExtension)?.pathLength;
  }

  signatureAlgorithmFor(requested: string | undefined): SignatureAlgorithm {
    return requested ? resolveSignatureAlgorithm(requested, this.keySpec) : defaultSignatureAlgorithm(this.keySpec);
  }

  signingKey(sig: SignatureAlgorithm): Promise<CryptoKey> {
    let key = this.signingKeys.get(sig);
    if (!key) {
      key = importSigningKey(this.privateKey, sig);
      this.signingKeys.set(sig, key);
    }
    return key;
  }

  /** Verifies the CSR's own signature, then issues a certificate for its subject, key and SANs. */
  async signCsr(csr: string | Buffer | ParsedCsr, options: IssueOptions = {}): Promise<IssuedCertificate> {
    const parsed = typeof csr === 'string' || Buffer.isBuffer(csr) ? await parseCsr(csr) : csr;
    return this.issue({ subjectName: parsed.subjectName, publicKey: parsed.publicKey, sans: parsed.sanEntries }, options);
  }

  async issue(subject: SubjectToIssue, options: IssueOptions = {}): Promise<IssuedCertificate> {
    const sig = this.signatureAlgorithmFor(options.signatureAlgorithm);
    const validity = this.clampValidity(options.validity ?? validityPeriod(options.validityDays ?? 365, 'days'));
    const subjectKeyId = await keyIdentifier(subject.publicKey);
    const extensions = [
      ...(options.isIntermediate ? caExtensions(this.childPathLength(options.pathLength)) : this.leafExtensions(subject, options)),
      ...keyIdentifierExtensions(subjectKeyId, this.keyId),
      ...crlDistributionPoint(options.crlDistributionPointUrl),
    ];
    const san = options.isIntermediate ? undefined : sanExtension(subject.sans ?? []);
    if (san) extensions.push(san);
    const built = await buildCertificate(
      { subjectName: subject.subjectName, issuerName: this.subjectName, publicKey: subject.publicKey, validity, extensions },
      { key: await this.signingKey(sig), signatureAlgorithm: sig },
    );
    return {
      certPem: built.certPem,
      serialNumber: built.serialNumber,
      notBefore: validity.notBefore,
      notAfter: validity.notAfter,
      chainPems: [this.certPem, ...this.chainPems],
    };
  }

  private leafExtensions(subject: SubjectToIssue, options: IssueOptions): x509.Extension[] {
    return templateExtensions(resolveTemplate(options.template), keySpecOf(subject.publicKey).algorithm);
  }

  private childPathLength(requested: number | undefined): number | undefined {
    const own = this.pathLength;
    if (own === 0) {
      throw new CertificateError('NOT_A_CA', 'This CA has pathLength 0 and cannot issue intermediate CA certificates.');
    }
    if (requested !== undefined) {
      if (own !== undefined && requested >= own) {
        throw new CertificateError('INVALID_INPUT', `The intermediate pathLength must be below this CA's (${own}).`);
      }
      return requested;
    }
    return own === undefined ? undefined : own - 1;
  }

  /** A certificate cannot outlive its issuer, so notAfter is cut to the CA's (as AD CS does). */
  private clampValidity(validity: ValidityPeriod): ValidityPeriod {
    const caEnd = this.cert.notAfter;
    return validity.notAfter > caEnd ? { notBefore: validity.notBefore, notAfter: caEnd } : validity;
  }
}

export interface CaRequest {
  subject: SubjectInput;
  keyAlgorithm?: string;
  keyLength?: number | string;
  signatureAlgorithm?: string;
  /** Default 3650 days for a root, 1825 for an intermediate. */
  validityDays?: number;
  validity?: ValidityPeriod;
  pathLength?: number;
  crlDistributionPointUrl?: string;
}

export interface CreatedCa {
  certPem: string;
  /** Unencrypted PKCS#8 PEM. */
  privateKeyPem: string;
  serialNumber: string;
  /** Issuers above the new CA (empty for a root). */
  chainPems: string[];
}

export async function createRootCa(request: CaRequest): Promise<CreatedCa> {
  const spec = resolveKeySpec(request.keyAlgorithm, request.keyLength);
  const sig = resolveSignatureAlgorithm(request.signatureAlgorithm, spec);
  const { privateKeyPem } = await generateKeyPair(spec);
  const privateKey = loadPrivateKey(privateKeyPem);
  const publicKey = createPublicKey(privateKey);
  const name = buildName(request.subject);
  const keyId = await keyIdentifier(publicKey);
  const built = await buildCertificate(
    {
      subjectName: name,
      issuerName: name,
      publicKey,
      validity: request.validity ?? validityPeriod(request.validityDays ?? 3650, 'days'),
      extensions: [
        ...caExtensions(request.pathLength),
        ...keyIdentifierExtensions(keyId, keyId),
        ...crlDistributionPoint(request.crlDistributionPointUrl),
      ],
    },
    { key: await importSigningKey(privateKey, sig), signatureAlgorithm: sig },
  );
  return { certPem: built.certPem, privateKeyPem, serialNumber: built.serialNumber, chainPems: [] };
}

export async function createIntermediateCa(parent: CertificateAuthority, request: CaRequest): Promise<CreatedCa> {
  const spec = resolveKeySpec(request.keyAlgorithm, request.keyLength);
  const { privateKeyPem } = await generateKeyPair(spec);
  const issued = await parent.issue(
    { subjectName: buildName(request.subject), publicKey: createPublicKey(loadPrivateKey(privateKeyPem)) },
    {
      isIntermediate: true,
      pathLength: request.pathLength,
      validity: request.validity,
      validityDays: request.validityDays ?? 1825,
      crlDistributionPointUrl: request.crlDistributionPointUrl,
      signatureAlgorithm: request.signatureAlgorithm,
    },
  );
  return { certPem: issued.certPem, privateKeyPem, serialNumber: issued.serialNumber, chainPems: issued.chainPems };
}

/** One-shot form of CertificateAuthority.signCsr for callers that sign rarely. */
export async function signCsr(ca: CaMaterial, csr: string | Buffer, options: IssueOptions = {}): Promise<IssuedCertificate> {
  return (await CertificateAuthority.load(ca)).signCsr(csr, options);
}
