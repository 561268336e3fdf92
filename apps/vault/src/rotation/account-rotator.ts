/** One account's due rotation, as the scheduler hands it over. */
export interface RotationRun {
  runId: number;
  accountId: number;
  /** What started it, for the audit row and the event ("rotation schedule of resource group X"). */
  startedBy: string;
}

/**
 * Rotates one account's password on its target, as the server itself: a new password from
 * the account's policy, changed through the resource's connector, stored with
 * accounts.last_rotation_run = runId, a `Password Rotated` audit row and a rotation event,
 * all in the transaction that stores it. Throws an AppError naming why when the target
 * refused; then nothing changed in the vault. The scheduler stays outside: it decides what
 * is due, retries and notifies.
 */
export interface AccountRotator {
  rotate(run: RotationRun): Promise<void>;
}

export const ACCOUNT_ROTATOR = Symbol('ACCOUNT_ROTATOR');

/** Thrown by a rotator when the account may not rotate yet (a pair's grace): the run waits, no attempt is counted. */
export class RotationDeferred extends Error {
  constructor(
    readonly until: Date,
    why: string,
  ) {
    super(why);
  }
}
