import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditEvent, AuditOperation, AuditWriter } from '@app/audit';
import { findBuiltinPolicy, generatePassword, Keyring, DEFAULT_POLICY_NAME } from '@app/crypto';
import { LockedAccount, PasswordChanger } from '../passwords/password-changer';
import { PoliciesService } from '../policies/policies.service';
import { AccountSecretGate, PASSWORD_CONTEXT } from '@app/gate';
import { RotationEvents } from '../rotation/rotation-events';
import { effectiveAccessControl } from './access-sql';
import { PENDING_PASSWORD_CONTEXT, REMOTE_PASSWORD_RESETTER, RemotePasswordResetter, RemoteTarget } from './remote-reset';

/** A checked-out request, locked, with what a check-in needs to know. */
export interface CheckinRow {
  id: number;
  account_id: number;
  requester_id: number;
  org_id: number;
  resource_id: number;
  resource_name: string;
  account_name: string;
  reset_after_checkin: boolean;
  remote: boolean;
}

/** The columns of a CheckinRow, over aliases pr, a, r and the lateral ac. */
export const CHECKIN_COLUMNS = `pr.id, pr.account_id, pr.requester_id, r.org_id, r.id AS resource_id, r.name AS resource_name,
  a.name AS account_name, coalesce(ac.reset_after_checkin, false) AS reset_after_checkin,
  r.remote_account_id IS NOT NULL AS remote`;
export const CHECKIN_FROM = `password_requests pr JOIN accounts a ON a.id = pr.account_id JOIN resources r ON r.id = a.resource_id
  LEFT JOIN ${effectiveAccessControl('a')} ON true`;

/** A stuck remote reset is left to its own instance for this long before recovery. */
const RECOVERY_GRACE = `interval '1 minute'`;

/**
 * Ends a check-out, by the user, an administrator or the sweeper, with the reset the
 * account asks for.
 *
 * Crash safety. A local reset is one transaction: the check-in, the new password, the old
 * one moved to history and the audit rows commit together or not at all. A remote reset
 * cannot join a database transaction, so it runs in three steps:
 *   1. commit the request as 'resetting' with the new password sealed in
 *      pending_password (the old one is still the account's password; the account stays
 *      in use, the exclusive index covers 'resetting');
 *   2. change the password on the host, holding the request row lock;
 *   3. in that same transaction, store the new password (old one to history) and mark the
 *      request checked in.
 * A process that dies after step 1 leaves both passwords in the database. The sweeper
 * claims 'resetting' rows nobody holds (FOR UPDATE SKIP LOCKED, after a grace period) and
 * asks the host which password it accepts: the new one finalises step 3, the old one
 * ends the check-in without a change; if the host cannot say, the row waits for the next
 * sweep.
 */
@Injectable()
export class CheckinFinisher {
  private readonly logger = new Logger('CheckIn');

  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly changer: PasswordChanger,
    private readonly gate: AccountSecretGate,
    private readonly policies: PoliciesService,
    private readonly events: RotationEvents,
    @Optional() @Inject(REMOTE_PASSWORD_RESETTER) private readonly remote?: RemotePasswordResetter,
  ) {}

  /**
   * Inside the caller's transaction, with the request row locked. Returns true when a
   * remote reset must follow the commit (completeRemote).
   */
  async finish(m: EntityManager, row: CheckinRow, actor: Actor | null, reason = ''): Promise<boolean> {
    const how = actor ? '' : 'Checked in automatically at the end of the check-out time';
    if (row.reset_after_checkin && row.remote && this.remote) {
      const account = await this.gate.authorizeServerChange(m, row.account_id);
      const password = await this.generate(account);
      await m.query(
        `UPDATE password_requests SET status = 'resetting', pending_password = $2, reset_started_at = now(),
           checked_in_at = now(), checked_in_by = $3 WHERE id = $1`,
        [row.id, this.keyring.seal(password, PENDING_PASSWORD_CONTEXT), actor?.id ?? null],
      );
      await this.record(m, row, actor, AuditOperation.PasswordCheckedIn, reason, join(how, 'remote password reset started'));
      return true;
    }
    if (row.reset_after_checkin && !row.remote) {
      const account = await this.gate.authorizeServerChange(m, row.account_id);
      await this.changer.store(m, actor, account, await this.generate(account), {
        reason,
        requestId: row.id,
        description: 'Reset after check-in',
      });
      await this.announce(m, row);
    } else if (row.reset_after_checkin) {
      await this.record(m, row, actor, AuditOperation.PasswordChangeFailed, reason, 'Reset after check-in skipped: remote password reset is not available', 'Failed');
    }
    await m.query(`UPDATE password_requests SET status = 'checked_in', checked_in_at = now(), checked_in_by = $2 WHERE id = $1`, [
      row.id,
      actor?.id ?? null,
    ]);
    await rotationsDueNow(m, row.account_id);
    await this.record(m, row, actor, AuditOperation.PasswordCheckedIn, reason, how);
    return false;
  }

  /**
   * Checks in one check-out whose time ran out (of one account, or any), as the user would
   * have; exactly one instance acts on each. The sweeper calls it, and so does a check-out
   * that finds the account's previous check-out lapsed, so the next user need not wait for
   * a sweep. Returns whether there was one.
   */
  async checkInLapsed(accountId?: number): Promise<boolean> {
    const claimed = await this.dataSource.transaction(async (m) => {
      const [row] = await m.query(
        `SELECT ${CHECKIN_COLUMNS} FROM ${CHECKIN_FROM}
         WHERE pr.status = 'checked_out' AND pr.checkout_until <= now() AND ($1::int IS NULL OR pr.account_id = $1)
         ORDER BY pr.checkout_until LIMIT 1 FOR UPDATE OF pr SKIP LOCKED`,
        [accountId ?? null],
      );
      if (!row) return undefined;
      return { id: row.id as number, remote: await this.finish(m, row, null) };
    });
    if (claimed?.remote) await this.completeRemote(claimed.id, null);
    return claimed !== undefined;
  }

  /** Steps 2 and 3 of a remote reset, right after step 1 committed. */
  completeRemote(requestId: number, actor: Actor | null): Promise<void> {
    return this.dataSource.transaction(async (m) => {
      const [row] = await m.query(`SELECT ${CHECKIN_COLUMNS}, pr.pending_password FROM ${CHECKIN_FROM}
        WHERE pr.id = $1 AND pr.status = 'resetting' FOR UPDATE OF pr`, [requestId]);
      if (row) await this.settle(m, row, actor, true);
    });
  }

  /** Recovery of remote resets whose instance died; one row per call, exactly one instance acts. */
  async recoverOne(): Promise<boolean> {
    if (!this.remote) return false;
    return this.dataSource.transaction(async (m) => {
      const [row] = await m.query(`SELECT ${CHECKIN_COLUMNS}, pr.pending_password FROM ${CHECKIN_FROM}
        WHERE pr.status = 'resetting' AND pr.reset_started_at < now() - ${RECOVERY_GRACE}
        ORDER BY pr.reset_started_at LIMIT 1 FOR UPDATE OF pr SKIP LOCKED`);
      if (!row) return false;
      await m.query('UPDATE password_requests SET reset_started_at = now() WHERE id = $1', [row.id]);
      await this.settle(m, row, null, false);
      return true;
    });
  }

  private async settle(m: EntityManager, row: CheckinRow & { pending_password: Buffer }, actor: Actor | null, change: boolean): Promise<void> {
    const remote = this.remote!;
    const startedBy = `reset after check-in of request ${row.id}${actor ? ` by ${actor.username}` : ' (check-out time ended)'}`;
    const target: RemoteTarget = { orgId: row.org_id, resourceId: row.resource_id, accountId: row.account_id, accountName: row.account_name, startedBy };
    const account = await this.gate.authorizeServerChange(m, row.account_id);
    const fresh = await this.keyring.openText(row.pending_password, PENDING_PASSWORD_CONTEXT);
    let changed = false;
    if (change) {
      changed = await remote.change(target, fresh).then(
        () => true,
        (error: Error) => (this.logger.warn(`Remote reset of account ${row.account_id} failed: ${error.message}`), false),
      );
    }
    if (!changed) changed = await remote.verify(target, fresh).catch(() => false);
    if (changed) {
      await this.changer.store(m, actor, account, fresh, { requestId: row.id, description: 'Reset after check-in (remote)' });
      await this.announce(m, row);
    } else {
      const old = await this.keyring.openText(account.password, PASSWORD_CONTEXT);
      if (!(await remote.verify(target, old).catch(() => false))) {
        // The host accepts neither, or cannot be reached: keep both and try again later.
        this.logger.warn(`Remote reset of account ${row.account_id} is unresolved; will retry`);
        return;
      }
      await this.record(m, row, actor, AuditOperation.PasswordChangeFailed, '', 'Remote reset after check-in failed; password unchanged', 'Failed');
    }
    await m.query(`UPDATE password_requests SET status = 'checked_in', pending_password = NULL WHERE id = $1`, [row.id]);
    await rotationsDueNow(m, row.account_id);
  }

  /** The rotation webhook's event for a reset after check-in, in the storing transaction. */
  private announce(m: EntityManager, row: CheckinRow): Promise<void> {
    return this.events.record(m, {
      orgId: row.org_id,
      resource: row.resource_name,
      account: row.account_name,
      resourceId: row.resource_id,
      accountId: row.account_id,
      outcome: 'rotated',
      trigger: 'reset after check-in',
    });
  }

  private async generate(account: LockedAccount): Promise<string> {
    const policy = (await this.policies.find(account.org_id, account.password_policy)) ?? findBuiltinPolicy(DEFAULT_POLICY_NAME)!;
    return generatePassword(policy);
  }

  private record(
    m: EntityManager,
    row: CheckinRow,
    actor: Actor | null,
    operation: string,
    reason: string,
    description: string,
    outcome: AuditEvent['outcome'] = 'Success',
  ): Promise<string> {
    return this.audit.record(
      {
        category: 'Resource',
        operation,
        outcome,
        actor,
        orgId: row.org_id,
        resourceId: row.resource_id,
        resourceName: row.resource_name,
        accountId: row.account_id,
        accountName: row.account_name,
        requestId: row.id,
        reason,
        description,
      },
      m,
    );
  }
}

function join(...parts: string[]): string {
  return parts.filter(Boolean).join('; ');
}

/** Scheduled rotations that waited for this check-in (RotationScheduler; of the account, or of the pair it is the partner of) are due at once. */
function rotationsDueNow(m: EntityManager, accountId: number): Promise<unknown> {
  return m.query(
    `UPDATE rotation_runs SET next_attempt_at = now()
     WHERE status = 'due' AND next_attempt_at > now() AND (account_id = $1 OR account_id IN (SELECT id FROM accounts WHERE dual_partner_id = $1))`,
    [accountId],
  );
}
