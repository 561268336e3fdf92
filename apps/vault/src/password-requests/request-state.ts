import { EntityManager } from 'typeorm';
import { AppError } from '@app/http';

export const STATUS_WAITING = 'WAITING FOR APPROVAL / CHECKOUT';
export const STATUS_CHECKED_OUT = '***** [checkIn]';
export const ALREADY_CHECKED_OUT = 'The password is already checked out by another user';

const EXPLANATIONS: Record<string, string> = {
  waiting: 'The password request is waiting for approval',
  approved: 'The password request is approved and waiting for check-out',
  rejected: 'The password request has been rejected',
  expired: 'The password request has expired',
  checked_out: 'The password is checked out',
  resetting: 'The password is being checked in',
  checked_in: 'The password has already been checked in',
};

/**
 * When a transition finds no request in the state it needs, the latest request of that
 * requester for that account says why, so the client gets a message it can act on.
 */
export async function explainMissing(m: EntityManager, accountId: number, requesterId: number): Promise<AppError> {
  const [latest] = await m.query(
    `SELECT status, checked_in_by IS NULL AND checked_in_at >= checkout_until AS timed_out
     FROM password_requests WHERE account_id = $1 AND requester_id = $2 ORDER BY id DESC LIMIT 1`,
    [accountId, requesterId],
  );
  if (!latest) return AppError.notFound('No password request found for this account and requester');
  if (latest.status === 'checked_in' && latest.timed_out) {
    return AppError.conflict('The password has already been checked in: the check-out time ran out');
  }
  return AppError.conflict(EXPLANATIONS[latest.status] ?? `The password request is ${latest.status}`);
}
