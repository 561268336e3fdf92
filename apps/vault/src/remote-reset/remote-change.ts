import { Actor } from '@app/audit';

/**
 * Who has a remote operation done, as the gate needs it for the administrator credential:
 * a user (decided on it, with reason and ticket), or the server itself (`actor` null)
 * naming what started it (a check-in, a schedule, a verification round).
 */
export interface RemoteCaller {
  actor: Actor | null;
  reason?: string;
  ticketId?: string;
  startedBy?: string;
}

/** What one verification found: the stored password logs in, is refused, or the target could not say. */
export type SyncStatus = 'IN SYNC' | 'OUT OF SYNC' | 'UNREACHABLE' | 'DESTINATION CHANGED';

export interface Verification {
  status: SyncStatus;
  message: string;
}

/** How a pending change was settled. */
export type Settlement = 'none' | 'busy' | 'committed' | 'kept' | 'undecided';

/** Sealing context of accounts.pending_password (the new password of a remote change in flight). */
export const ACCOUNT_PENDING_CONTEXT = 'accounts.pending_password';

/** Namespace of the session advisory locks held by a remote change of one account (key 2: the account id). */
export const REMOTE_LOCK_NAMESPACE = 25;
