import { CertificateError } from './errors';
import { writeJks } from './jks';
import { decryptPrivateKeyPem, encryptPrivateKeyPem } from './keys';
import { certificateDetails, readCertificateDers, readCertificatePems } from './parse';
import { joinPems } from './pem';
import { buildPkcs7 } from './pkcs7';
import { writePkcs12 } from './pkcs12';

export type ExportFormat = 'PEM' | 'CRT' | 'CER' | 'DER' | 'P7B' | 'PKCS' | 'JKS' | 'KEY';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['PEM', 'CRT', 'CER', 'DER', 'P7B', 'PKCS', 'JKS', 'KEY'];

export interface ExportInput {
  certPem: string;
  /** Issuers, nearest first. */
  chainPems?: string[];
  /** PKCS#8 PEM (may be encrypted, then `password` opens it). */
  privateKeyPem?: string;
  /** Protects PKCS / JKS / KEY output. */
  password?: string;
  /** Keystore alias; defaults to the certificate's common name. */
  alias?: string;
}

export interface ExportedFile {
  body: Buffer;
  /** File name suffix including the dot, e.g. ".p12". */
  fileSuffix: string;
  contentType: string;
}

const ALIASES: Record<string, ExportFormat> = { PFX: 'PKCS', P12: 'PKCS', PKCS12: 'PKCS', P7: 'P7B', PKCS7: 'P7B' };

export function resolveExportFormat(format: string): ExportFormat {
  const upper = format.trim().toUpperCase();
  const found = (EXPORT_FORMATS as readonly string[]).includes(upper) ? (upper as ExportFormat) : ALIASES[upper];
  if (!found) {
    throw new CertificateError('UNKNOWN_FORMAT', `fileType "${format}" is not supported; use one of ${EXPORT_FORMATS.join(', ')}.`);
  }
  return found;
}

/**
 * getCertificate fileType encodings:
 * PEM = certificate and chain as PEM; CRT = the certificate alone as PEM; CER and DER =
 * the certificate alone as binary DER (CER follows the Windows export convention);
 * P7B = DER PKCS#7 certs-only bundle with the chain (what Windows writes, and what
 * `openssl pkcs7 -inform DER -print_certs` reads); PKCS = PKCS#12 with key and chain;
 * JKS = Java keystore with one PrivateKeyEntry; KEY = PKCS#8 PEM, encrypted when a
 * password is given. PKCS, JKS and KEY need the private key; PKCS and JKS a password.
 */
export function exportCertificate(format: string, input: ExportInput): ExportedFile {
  const kind = resolveExportFormat(format);
  const [certDer] = readCertificateDers(input.certPem);
  const chainPems = (input.chainPems ?? []).flatMap((p) => readCertificatePems(p));
  const certPem = readCertificatePems(input.certPem)[0];
  switch (kind) {
    case 'PEM':
      return file(Buffer.from(joinPems([certPem, ...chainPems])), '.pem', 'application/x-pem-file');
    case 'CRT':
      return file(Buffer.from(certPem), '.crt', 'application/x-pem-file');
    case 'CER':
      return file(certDer, '.cer', 'application/pkix-cert');
    case 'DER':
      return file(certDer, '.der', 'application/pkix-cert');
    case 'P7B':
      return file(buildPkcs7([certDer, ...chainPems.flatMap((p) => readCertificateDers(p))]), '.p7b', 'application/x-pkcs7-certificates');
    case 'PKCS': {
      const password = requirePassword(input, 'PKCS');
      const privateKeyPem = requireKey(input, 'PKCS');
      const body = writePkcs12({ privateKeyPem, certPems: [certPem, ...chainPems], password, alias: aliasFor(input) });
      return file(body, '.p12', 'application/x-pkcs12');
    }
    case 'JKS': {
      const password = requirePassword(input, 'JKS');
      const privateKeyPem = requireKey(input, 'JKS');
      const body = writeJks([{ alias: aliasFor(input), privateKeyPem, certPems: [certPem, ...chainPems] }], password);
      return file(body, '.jks', 'application/x-java-keystore');
    }
    case 'KEY': {
      const privateKeyPem = requireKey(input, 'KEY');
      const body = input.password ? encryptPrivateKeyPem(privateKeyPem, input.password) : privateKeyPem;
      return file(Buffer.from(body), '.key', 'application/x-pem-file');
    }
  }
}

function file(body: Buffer, fileSuffix: string, contentType: string): ExportedFile {
  return { body, fileSuffix, contentType };
}

function requireKey(input: ExportInput, format: ExportFormat): string {
  if (!input.privateKeyPem) {
    throw new CertificateError(
      'PRIVATE_KEY_REQUIRED',
      `fileType ${format} needs the certificate's private key, which this server does not hold; use PEM, CRT, CER, DER or P7B.`,
    );
  }
  return decryptPrivateKeyPem(input.privateKeyPem, input.password);
}

function requirePassword(input: ExportInput, format: ExportFormat): string {
  if (!input.password) throw new CertificateError('INVALID_INPUT', `fileType ${format} needs a password to protect the keystore.`);
  return input.password;
}

function aliasFor(input: ExportInput): string {
  if (input.alias) return input.alias;
  return certificateDetails(input.certPem).subject.cname.toLowerCase() || 'certificate';
}
