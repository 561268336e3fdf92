import { SshKeyError } from './errors';

const USER_NAME = /^[a-z_][a-z0-9_.-]*$/i;

/** User names reach remote shell commands, so only the portable POSIX set is accepted. */
export function validateUserName(userName: string): string {
  if (typeof userName !== 'string' || userName.length > 64 || !USER_NAME.test(userName)) {
    throw new SshKeyError('invalid_user_name', 'The user name may contain only letters, digits, "_", "." and "-", and must not start with a digit, "." or "-"');
  }
  return userName;
}
