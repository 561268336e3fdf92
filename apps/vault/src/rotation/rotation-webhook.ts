import { createHmac, timingSafeEqual } from 'node:crypto';

/** What the rotation webhook receives: who rotated, when, how it ended; never a password. */
export interface RotationEventBody {
  event: 'password.rotated';
  id: string;
  resource: string;
  account: string;
  resourceId: number;
  accountId: number;
  time: string;
  /** rotated, or failed (after the schedule's last retry). */
  outcome: 'rotated' | 'failed';
  /** What started it: a schedule, a remote change, a reconcile, a reset after check-in. */
  trigger: string;
}

export const SIGNATURE_HEADER = 'x-vault-signature';

/**
 * The signature header's value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
 * The timestamp is signed with the body, so a receiver can refuse old deliveries replayed.
 */
export function signRotationEvent(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** A receiver's check (also what the docs show): the header matches the body and is recent. */
export function verifyRotationEvent(secret: string, body: string, header: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m || Math.abs(nowSeconds - Number(m[1])) > toleranceSeconds) return false;
  const expected = Buffer.from(signRotationEvent(secret, body, Number(m[1])).slice(-64), 'hex');
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex'));
}

/** Seconds before delivery attempt n+1 after n failures: 5 s doubling, at most an hour. */
export function retryDelaySeconds(failures: number): number {
  return Math.min(3_600, 5 * 2 ** Math.min(failures, 20));
}
