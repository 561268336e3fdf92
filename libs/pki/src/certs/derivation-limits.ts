import { DerivationLimitError } from '@app/crypto';
import { CertificateError } from './errors';

export { checkOpenSshCosts, checkPkcs12Costs, checkPkcs8Costs, DerivationLimitError, encryptedPkcs8Der, MAX_BCRYPT_ROUNDS, MAX_PBKDF_ITERATIONS, MAX_SCRYPT_COST } from '@app/crypto';

/** Runs a check, turning a limit exceeded into the certificate domain's INVALID_INPUT. */
export function withinLimits(checkCosts: () => void): void {
  try {
    checkCosts();
  } catch (error) {
    if (error instanceof DerivationLimitError) throw new CertificateError('INVALID_INPUT', `${error.message}.`);
    throw error;
  }
}
