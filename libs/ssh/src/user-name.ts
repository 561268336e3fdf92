import { SshKeyError } from './errors';

const USER_NAME = /^[a-z_][a-z0-9_.-]*$/i;

/** Whether a user name is in the portable POSIX set (the one rule for names we send and names we keep). */
export function isValidUserName(userName: unknown): userName is string {
  return typeof userName === 'string' && userName.length <= 64 && USER_NAME.test(userName);
}

/** User names reach remote shell commands, so only the portable POSIX set is accepted. */
export function validateUserName(userName: string): string {
  if (!isValidUserName(userName)) {
    throw new SshKeyError('invalid_user_name', 'The user name may contain only letters, digits, "_", "." and "-", and must not start with a digit, "." or "-"');
  }
  return userName;
}
