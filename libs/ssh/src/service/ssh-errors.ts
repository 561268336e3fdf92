import { AppError, ErrorCode } from '@app/http';
import { AddressError } from '@app/net';
import { RemoteHostError, SshKeyError } from '..';

/**
 * Library errors become envelope failures: bad input answers INVALID_INPUT, a host that
 * refused answers REMOTE_FAILURE; both messages already name only host, port, user, path.
 */
export function toAppError(error: unknown, context?: string): unknown {
  if (error instanceof SshKeyError || error instanceof AddressError) return AppError.invalid(error.message);
  if (error instanceof RemoteHostError) {
    return new AppError(ErrorCode.RemoteFailure, context ? `${context}: ${error.message}` : error.message);
  }
  return error;
}

/** Runs a library call, rethrowing its errors as AppErrors. */
export async function mapSshErrors<T>(work: () => Promise<T> | T, context?: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toAppError(error, context);
  }
}
