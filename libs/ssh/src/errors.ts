/** Bad input for SSH key operations: unknown type/length, unreadable key file, wrong passphrase. */
export type SshKeyErrorCode =
  | 'invalid_key_spec'
  | 'not_a_private_key'
  | 'wrong_passphrase'
  | 'invalid_public_key'
  | 'unsupported_export'
  | 'invalid_user_name'
  | 'invalid_password'
  | 'invalid_comment'
  /** The file asks for more key-derivation work (iterations, rounds) than allowed. */
  | 'too_costly';

export class SshKeyError extends Error {
  constructor(
    readonly code: SshKeyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SshKeyError';
  }
}

/** Why an operation on a remote host failed; controllers map these to envelope messages. */
export type RemoteHostErrorReason =
  | 'unreachable'
  | 'timeout'
  | 'not_ssh'
  | 'auth_failed'
  | 'permission_denied'
  | 'not_found'
  | 'command_failed'
  /** The server's host key is not the one recorded (or expected) for that host and port. */
  | 'host_key_rejected';

/** Messages never carry passwords, passphrases or key material, only host, port, user names and paths. */
export class RemoteHostError extends Error {
  constructor(
    readonly reason: RemoteHostErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'RemoteHostError';
  }
}
