export type CertificateErrorCode =
  | 'INVALID_INPUT'
  | 'UNSUPPORTED_ALGORITHM'
  | 'INVALID_SIGNATURE'
  | 'WRONG_PASSWORD'
  | 'PRIVATE_KEY_REQUIRED'
  | 'UNKNOWN_TEMPLATE'
  | 'UNKNOWN_FORMAT'
  | 'NOT_A_CA';

/**
 * Domain error for everything in the certificate library. Messages are meant for the
 * person calling the API, so they say what to change; they never include key material
 * or passwords.
 */
export class CertificateError extends Error {
  constructor(
    readonly code: CertificateErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CertificateError';
  }
}
