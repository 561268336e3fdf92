import { EntityManager } from 'typeorm';
import { Actor } from '@app/audit';
import { resourceVisibleSql, visibilityParams } from '@app/gate';
import { AppError } from '@app/http';
import { adminApprover, approverSql, effectiveAccessControl } from './access-sql';

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

/** The one answer for a request the caller may not know of: the same as for none at all. */
export function noSuchRequest(): AppError {
  return AppError.notFound('No password request found for this account and requester');
}

/**
 * Whether the caller ($uid, organisation $org, super administrator $super, approver kind
 * $kind as adminApprover gives it) may know of requests for account `a` of resource `r`
 * under the access control `ac`: they see the account, or they may approve for it. Anyone
 * else gets noSuchRequest, whatever the request's state, so that neither another
 * organisation nor a user without a share learns that the account is requested.
 */
export function mayKnowRequestsSql(a: string, r: string, ac: string, org: string, uid: string, superAdmin: string, kind: string): string {
  return `(${resourceVisibleSql(r, org, uid, superAdmin, { account: a })}
    OR (${r}.org_id = ${org} AND coalesce(${approverSql(ac, r, uid, kind)}, false)))`;
}

/**
 * When a transition finds no request in the state it needs, the latest request of that
 * requester for that account says why, so the client gets a message it can act on; but
 * only to a caller who may know of the account's requests (mayKnowRequestsSql): a
 * requester who no longer sees the account is answered as if there were no request.
 */
export async function explainMissing(m: EntityManager, actor: Actor, accountId: number, requesterId: number): Promise<AppError> {
  const [latest] = await m.query(
    `SELECT pr.status, pr.checked_in_by IS NULL AND pr.checked_in_at >= pr.checkout_until AS timed_out
     FROM password_requests pr JOIN accounts a ON a.id = pr.account_id JOIN resources r ON r.id = a.resource_id
       LEFT JOIN ${effectiveAccessControl('a')} ON true
     WHERE pr.account_id = $4 AND pr.requester_id = $5
       AND ${mayKnowRequestsSql('a', 'r', 'ac', '$1', '$2', '$3', '$6')}
     ORDER BY pr.id DESC LIMIT 1`,
    [...visibilityParams(actor), accountId, requesterId, adminApprover(actor)],
  );
  if (!latest) return noSuchRequest();
  if (latest.status === 'checked_in' && latest.timed_out) {
    return AppError.conflict('The password has already been checked in: the check-out time ran out');
  }
  return AppError.conflict(EXPLANATIONS[latest.status] ?? `The password request is ${latest.status}`);
}
