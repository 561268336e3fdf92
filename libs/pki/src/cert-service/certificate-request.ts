import { randomBytes } from 'node:crypto';
import { subjectFromRequest, SubjectInput, ValidityPeriod, validityPeriod } from '../certs';
import { CertificateRequestDto } from './certificate.dto';

export interface RequestOptions {
  subject: SubjectInput;
  altNames?: string;
  keyAlgorithm?: string;
  keyLength?: string;
  signatureAlgorithm?: string;
  validity: ValidityPeriod;
}

/** The shared fields of createCertificate and createCSR, as the certificate library takes them. */
export function requestOptions(dto: CertificateRequestDto): RequestOptions {
  return {
    subject: subjectFromRequest(dto),
    altNames: dto.ALT_NAMES,
    keyAlgorithm: dto.ALG || undefined,
    keyLength: dto.LEN || undefined,
    signatureAlgorithm: dto.SIGALG || undefined,
    validity: validityPeriod(dto.VALIDITY ?? 365, dto.VALIDITY_TYPE ?? 'days'),
  };
}

/**
 * The password that protects a stored key and its keystores: the caller's PASSWORD, or
 * a generated one (getCertificatePassphrase tells it) since a keystore always needs one.
 */
export function keyPassword(given: string | undefined): string {
  return given ? given : randomBytes(18).toString('base64url');
}
