/** Domain error codes. Every one maps to an envelope in `envelope.filter.ts`. */
export enum ErrorCode {
  AuthFailed = 'AUTH_FAILED',
  HostNotAllowed = 'HOST_NOT_ALLOWED',
  UserLocked = 'USER_LOCKED',
  UserExpired = 'USER_EXPIRED',
  Forbidden = 'FORBIDDEN',
  InvalidInput = 'INVALID_INPUT',
  NotFound = 'NOT_FOUND',
  Conflict = 'CONFLICT',
  TooLarge = 'TOO_LARGE',
  RemoteFailure = 'REMOTE_FAILURE',
  Unavailable = 'UNAVAILABLE',
}

/**
 * An error a client can act on: answered as HTTP 200 with status Failed and this message
 * (docs/api/vault.md, "Envelopes"). `details` lets a failure still carry the fields clients read
 * (e.g. PASSWORD = "[Request]").
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  static invalid(message: string): AppError {
    return new AppError(ErrorCode.InvalidInput, message);
  }
  static notFound(message: string): AppError {
    return new AppError(ErrorCode.NotFound, message);
  }
  static forbidden(message: string): AppError {
    return new AppError(ErrorCode.Forbidden, message);
  }
  static conflict(message: string): AppError {
    return new AppError(ErrorCode.Conflict, message);
  }
}

export const AUTH_FAILED_MESSAGE = 'API key received is not associated to any user. Authentication failed.';
export const HOST_NOT_ALLOWED_MESSAGE = 'User is not allowed to access from this host';
