import { AppError } from '@app/http';
import { CertificateError } from '../certs';

/** Certificate library errors already say what to change; they answer as INVALID_INPUT. */
export function toCertAppError(error: unknown): unknown {
  if (error instanceof CertificateError) return AppError.invalid(error.message);
  return error;
}

export async function mapCertErrors<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toCertAppError(error);
  }
}

/** PostgreSQL unique violation on the named constraint or index. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = e.driverError?.code ?? e.code;
  const name = e.driverError?.constraint ?? e.constraint;
  return code === '23505' && name === constraint;
}
