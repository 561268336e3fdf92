// The check-out state of an account, defined once. Reads, lists, check-outs and the gate
// all ask these questions through the fragments below, so a lapsed check-out is over
// everywhere at the same instant, whether or not the sweeper has checked it in yet.

/** Statuses that may hold an account (the exclusive-check-out index covers them). */
export const IN_USE_STATUSES = `('checked_out', 'resetting')`;

/** Whether request `p` is the running check-out of its requester (what lets them use the password). */
export function runningCheckoutSql(p: string): string {
  return `(${p}.status = 'checked_out' AND ${p}.checkout_until > now())`;
}

/**
 * Whether request `p` keeps its account from user `uid` now: another user's running
 * check-out, or the reset that follows a check-in (until the new password is set nobody
 * may use the old one, its last holder included). A lapsed check-out keeps nothing from
 * anyone.
 */
export function heldFromSql(p: string, uid: string): string {
  return `((${p}.requester_id <> ${uid} AND ${runningCheckoutSql(p)}) OR ${p}.status = 'resetting')`;
}

/**
 * Whether an access control applies to account `a` of resource `r` (row aliases): one for the
 * account, or one for the whole resource. Counted on those rows by the access_controls
 * triggers (migration AccessControlRows), so a statement that has read them opens no
 * other table.
 */
export function underAccessControlSql(a: string, r: string): string {
  return `(${a}.access_control_rows > 0 OR ${r}.access_control_rows > 0)`;
}

/** Refusals of a secret under access control, with what clients are shown. */
export const ACCESS_REFUSALS = {
  CHECKOUT: {
    message: 'The password is under access control: request it and check it out first',
    details: { PASSWORD: '[Request]' },
  },
  IN_USE: {
    message: 'The password is in use: another user has checked it out',
    details: { PASSWORD: '[ In use ]' },
  },
};

/**
 * Why user `uid` may not use the account's secret now, or NULL: under access control it
 * takes the caller's own running check-out; without one it is 'IN_USE' while someone else
 * holds the account exclusively, else 'CHECKOUT' (request it first).
 */
export function accessRefusalSql(a: string, r: string, uid: string): string {
  const accountId = `${a}.id`;
  return `CASE
    WHEN NOT ${underAccessControlSql(a, r)} THEN NULL
    WHEN EXISTS (SELECT 1 FROM password_requests p WHERE p.account_id = ${accountId} AND p.requester_id = ${uid}
                 AND ${runningCheckoutSql('p')}) THEN NULL
    WHEN EXISTS (SELECT 1 FROM password_requests p WHERE p.account_id = ${accountId}
                 AND p.exclusive AND ${heldFromSql('p', uid)}) THEN 'IN_USE'
    ELSE 'CHECKOUT' END`;
}

/** `PASSWORD STATUS` of account alias `a` for user `uid`: in use while it is held from them. */
export function inUseSql(a: string, uid: string): string {
  return `EXISTS (SELECT 1 FROM password_requests p WHERE p.account_id = ${a}.id AND ${heldFromSql('p', uid)})`;
}
