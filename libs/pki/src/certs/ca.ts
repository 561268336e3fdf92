import { createPublicKey, KeyObject, X509Certificate as NodeCertificate } from 'node:crypto';
import {
  defaultSignatureAlgorithm,
  KeySpec,
  resolveKeySpec,
  resolveSignatureAlgorithm,
  SignatureAlgorithm,
} from './algorithms';
import { buildCertificate, spkiOf } from './build';
import { parseCsr, ParsedCsr } from './csr';
import { certificateParts, childElements, readElement, spkiAlgorithm } from './der-writer';
import { CertificateError } from './errors';
import {
  authorityInfoAccess,
  authorityKeyIdentifier,
  basicConstraints,
  crlDistributionPoints,
  EKU_OIDS,
  extendedKeyUsage,
  keyIdentifierOf,
  keyUsage,
  ocspNoCheck,
  subjectAltName,
  subjectKeyIdentifier,
} from './extensions';
import { generateKeyPair, keySpecOf, loadPrivateKey, publicKeyMatches } from './keys';
import { readCertificateDers } from './parse';
import { toPem } from './pem';
import { buildNameDer, SanEntry, SubjectInput, ValidityPeriod, validityPeriod } from './subject';
import { caExtensions, resolveTemplate, templateExtensions } from './templates';
import { x509 } from './x509';

export interface CaMaterial {
  certPem: string;
  privateKeyPem: string;
  privateKeyPassword?: string;
  /** Issuers above this CA, nearest first, ending at the root. */
  chainPems?: string[];
  /** Where this CA publishes; written into everything it issues unless the options say otherwise. */
  publication?: Publication;
}

export interface Publication {
  crlUrl?: string;
  ocspUrl?: string;
  /** Where the CA's own certificate can be fetched (AIA caIssuers). */
  caIssuersUrl?: string;
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
  /** A delegated OCSP responder certificate (id-kp-OCSPSigning, ocsp-nocheck) instead of a leaf. */
  ocspResponder?: boolean;
  /** Defaults to SHA-256 for RSA, and the curve-matching hash for EC CA keys. */
  signatureAlgorithm?: string;
}

export interface SubjectToIssue {
  /** DER Name, e.g. ParsedCsr.subjectDer or buildNameDer(...). */
  subjectDer: Buffer;
  /** SubjectPublicKeyInfo DER. */
  spkiDer: Buffer;
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
 * A loaded CA: the certificate is parsed once and the key kept as a KeyObject, so each
 * issued certificate costs one native signature plus a little DER encoding.
 */
export class CertificateAuthority {
  /** The AKI extension naming this CA, shared by everything it signs. */
  readonly authorityKeyIdentifier: Buffer;
  private readonly crlDistributionPoints = new Map<string, Buffer>();
  private readonly authorityInfoAccess: Buffer | undefined;

  private constructor(
    readonly certPem: string,
    readonly chainPems: string[],
    readonly keySpec: KeySpec,
    readonly privateKey: KeyObject,
    readonly subjectDer: Buffer,
    readonly keyId: Buffer,
    readonly notAfter: Date,
    readonly pathLength: number | undefined,
    readonly publication: Publication,
    /** The subjectPublicKey BIT STRING contents, hashed into OCSP CertIDs and responder ids. */
    readonly publicKeyBits: Buffer,
  ) {
    this.authorityKeyIdentifier = authorityKeyIdentifier(keyId);
    if (publication.ocspUrl || publication.caIssuersUrl) {
      this.authorityInfoAccess = authorityInfoAccess({ ocsp: publication.ocspUrl, caIssuers: publication.caIssuersUrl });
    }
  }

  static async load(material: CaMaterial): Promise<CertificateAuthority> {
    const [der] = readCertificateDers(material.certPem);
    const nodeCert = new NodeCertificate(der);
    const cert = new x509.X509Certificate(der);
    const basic = cert.getExtension(x509.BasicConstraintsExtension);
    if (!basic?.ca) {
      throw new CertificateError(
        'NOT_A_CA',
        `Certificate "${nodeCert.subject.replace(/\n/g, ', ')}" is not a CA certificate (basicConstraints CA:false).`,
      );
    }
    const usage = cert.getExtension(x509.KeyUsagesExtension);
    if (usage && !(usage.usages & x509.KeyUsageFlags.keyCertSign)) {
      throw new CertificateError('NOT_A_CA', 'The CA certificate does not allow certificate signing (keyUsage lacks keyCertSign).');
    }
    const privateKey = loadPrivateKey(material.privateKeyPem, material.privateKeyPassword);
    if (!publicKeyMatches(privateKey, nodeCert.publicKey)) {
      throw new CertificateError('INVALID_INPUT', 'The CA private key does not belong to the CA certificate.');
    }
    const { subjectDer, spkiDer } = certificateParts(der);
    const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
    return new CertificateAuthority(
      toPem(der, 'CERTIFICATE'),
      (material.chainPems ?? []).flatMap((p) => readCertificateDers(p)).map((d) => toPem(d, 'CERTIFICATE')),
      keySpecOf(privateKey),
      privateKey,
      Buffer.from(subjectDer),
      ski ? Buffer.from(ski, 'hex') : keyIdentifierOf(spkiDer),
      cert.notAfter,
      basic.pathLength,
      material.publication ?? {},
      publicKeyBitsOf(spkiDer),
    );
  }

  signatureAlgorithmFor(requested: string | undefined): SignatureAlgorithm {
    return requested ? resolveSignatureAlgorithm(requested, this.keySpec) : defaultSignatureAlgorithm(this.keySpec);
  }

  /** Verifies the CSR's own signature, then issues a certificate for its subject, key and SANs. */
  async signCsr(csr: string | Buffer | ParsedCsr, options: IssueOptions = {}): Promise<IssuedCertificate> {
    const parsed = typeof csr === 'string' || Buffer.isBuffer(csr) ? await parseCsr(csr) : csr;
    return this.issue({ subjectDer: parsed.subjectDer, spkiDer: parsed.spkiDer, sans: parsed.sanEntries }, options);
  }

  async issue(subject: SubjectToIssue, options: IssueOptions = {}): Promise<IssuedCertificate> {
    const sig = this.signatureAlgorithmFor(options.signatureAlgorithm);
    const validity = this.clampValidity(options.validity ?? validityPeriod(options.validityDays ?? 365, 'days'));
    const extensions = options.isIntermediate
      ? caExtensions(this.childPathLength(options.pathLength))
      : options.ocspResponder
        ? ocspResponderExtensions()
        : [...this.leafExtensions(subject.spkiDer, options.template)];
    extensions.push(subjectKeyIdentifier(keyIdentifierOf(subject.spkiDer)), this.authorityKeyIdentifier);
    const crlUrl = options.crlDistributionPointUrl ?? this.publication.crlUrl;
    if (crlUrl) extensions.push(this.crlDistributionPoint(crlUrl));
    if (this.authorityInfoAccess) extensions.push(this.authorityInfoAccess);
    if (!options.isIntermediate && subject.sans?.length) extensions.push(subjectAltName(subject.sans));
    const built = await buildCertificate(
      { subjectDer: subject.subjectDer, issuerDer: this.subjectDer, spkiDer: subject.spkiDer, validity, extensions },
      { key: this.privateKey, signatureAlgorithm: sig },
    );
    return {
      certPem: built.certPem,
      serialNumber: built.serialNumber,
      notBefore: validity.notBefore,
      notAfter: validity.notAfter,
      chainPems: [this.certPem, ...this.chainPems],
    };
  }

  private leafExtensions(spkiDer: Buffer, template: string | undefined): Buffer[] {
    return templateExtensions(resolveTemplate(template), spkiAlgorithm(spkiDer));
  }

  private crlDistributionPoint(url: string): Buffer {
    let ext = this.crlDistributionPoints.get(url);
    if (!ext) {
      ext = crlDistributionPoints(url);
      this.crlDistributionPoints.set(url, ext);
    }
    return ext;
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
    return validity.notAfter > this.notAfter ? { notBefore: validity.notBefore, notAfter: this.notAfter } : validity;
  }
}

function ocspResponderExtensions(): Buffer[] {
  return [basicConstraints(false), keyUsage(['digitalSignature']), extendedKeyUsage([EKU_OIDS.ocspSigning]), ocspNoCheck()];
}

/** The subjectPublicKey BIT STRING contents (after the unused-bits byte), as OCSP hashes it. */
export function publicKeyBitsOf(spkiDer: Buffer): Buffer {
  const [, bits] = childElements(spkiDer, readElement(spkiDer));
  return spkiDer.subarray(bits.contentStart + 1, bits.end);
}

export interface CaRequest {
  subject: SubjectInput;
  keyAlgorithm?: string;
  keyLength?: number | string;
  /** For a root: its self-signature; for an intermediate: the parent's signature. */
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
  const spkiDer = spkiOf(createPublicKey(privateKey));
  const nameDer = buildNameDer(request.subject);
  const keyId = keyIdentifierOf(spkiDer);
  const built = await buildCertificate(
    {
      subjectDer: nameDer,
      issuerDer: nameDer,
      spkiDer,
      validity: request.validity ?? validityPeriod(request.validityDays ?? 3650, 'days'),
      extensions: [
        ...caExtensions(request.pathLength),
        subjectKeyIdentifier(keyId),
        authorityKeyIdentifier(keyId),
        ...(request.crlDistributionPointUrl ? [crlDistributionPoints(request.crlDistributionPointUrl)] : []),
      ],
    },
    { key: privateKey, signatureAlgorithm: sig },
  );
  return { certPem: built.certPem, privateKeyPem, serialNumber: built.serialNumber, chainPems: [] };
}

export async function createIntermediateCa(parent: CertificateAuthority, request: CaRequest): Promise<CreatedCa> {
  const spec = resolveKeySpec(request.keyAlgorithm, request.keyLength);
  const { privateKeyPem } = await generateKeyPair(spec);
  const issued = await parent.issue(
    { subjectDer: buildNameDer(request.subject), spkiDer: spkiOf(createPublicKey(loadPrivateKey(privateKeyPem))) },
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
