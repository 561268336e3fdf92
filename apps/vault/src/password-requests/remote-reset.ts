/** The account whose password a remote reset changes on its host. */
export interface RemoteTarget {
  orgId: number;
  resourceId: number;
  accountId: number;
  accountName: string;
  /** What started the reset (the check-in), named in the audit row of the administrator's use. */
  startedBy: string;
}

/**
 * Changes a password on the target host (provided by the SSH remote-operations feature
 * under REMOTE_PASSWORD_RESETTER). `verify` tells whether a password is the one the host
 * accepts now; recovery after a crash relies on it.
 */
export interface RemotePasswordResetter {
  change(target: RemoteTarget, newPassword: string): Promise<void>;
  verify(target: RemoteTarget, password: string): Promise<boolean>;
}

export const REMOTE_PASSWORD_RESETTER = Symbol('REMOTE_PASSWORD_RESETTER');

/** Sealing context of password_requests.pending_password. */
export const PENDING_PASSWORD_CONTEXT = 'password_requests.pending_password';
