import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditOperation } from '@app/audit';
import { DEFAULT_POLICY_NAME, findBuiltinPolicy, generatePassword } from '@app/crypto';
import { AppError, ErrorCode } from '@app/http';
import { REMOTE_PASSWORD_RESETTER, RemotePasswordResetter } from '../password-requests/remote-reset';
import { SshRemoteReset } from '../pki-subset/ssh-remote-reset';
import { PoliciesService } from '../policies/policies.service';
import { AccountRotator, RotationDeferred, RotationRun } from './account-rotator';
import { RotationEvents } from './rotation-events';

interface RotatedAccount {
  id: number;
  name: string;
  password_policy: string;
  resource_id: number;
  resource_name: string;
  org_id: number;
  partner_id: number | null;
  partner_name: string | null;
  current_id: number | null;
  grace_minutes: string | null;
  switched_at: Date | null;
  ready_at: Date | null;
}

/**
 * AccountRotator through the resource's remote reset: a new password from the account's
 * policy, changed on the target, stored with its run, audit row and event.
 *
 * A two-account pair (CONFIGURE DUAL ACCOUNT) rotates the member that is not current:
 * change it on the target, log in with the new password, and only then, in the storing
 * transaction, make it current. The member that was current stays untouched until the next
 * rotation, which waits until it has been out of use for GRACEMINUTES: so a credential a
 * consumer read keeps working for at least GRACEMINUTES after the read.
 */
@Injectable()
export class RemoteAccountRotator implements AccountRotator {
  constructor(
    private readonly dataSource: DataSource,
    private readonly remote: SshRemoteReset,
    private readonly policies: PoliciesService,
    private readonly events: RotationEvents,
    @Inject(REMOTE_PASSWORD_RESETTER) private readonly logins: RemotePasswordResetter,
  ) {}

  async rotate(run: RotationRun): Promise<void> {
    const [account]: RotatedAccount[] = await this.dataSource.query(
      `SELECT a.id, a.name, a.password_policy, r.id AS resource_id, r.name AS resource_name, r.org_id,
         a.dual_partner_id AS partner_id, p.name AS partner_name, a.dual_current_id AS current_id, a.dual_grace_minutes AS grace_minutes,
         a.dual_switched_at AS switched_at, a.dual_switched_at + make_interval(secs => coalesce(a.dual_grace_minutes, 0) * 60) AS ready_at
       FROM accounts a JOIN resources r ON r.id = a.resource_id LEFT JOIN accounts p ON p.id = a.dual_partner_id WHERE a.id = $1`,
      [run.accountId],
    );
    if (!account) throw AppError.notFound('The account no longer exists');
    if (!account.partner_id) return this.change(run, account, account.id, account.name);
    if (account.ready_at && account.ready_at.getTime() > Date.now()) {
      throw new RotationDeferred(account.ready_at, `The pair's previous member is in its grace period until ${account.ready_at.toISOString()}`);
    }
    const [otherId, otherName] = account.current_id === account.partner_id ? [account.id, account.name] : [account.partner_id, account.partner_name!];
    await this.change(run, account, otherId, otherName);
  }

  /** Changes `memberId` (the account, or the pair's member not in use) and stores it with the run. */
  private async change(run: RotationRun, head: RotatedAccount, memberId: number, memberName: string): Promise<void> {
    const policy = (await this.policies.find(head.org_id, head.password_policy)) ?? findBuiltinPolicy(DEFAULT_POLICY_NAME)!;
    const password = generatePassword(policy);
    const pair = head.partner_id !== null;
    await this.remote.resetRemotePassword(memberId, password, {
      startedBy: run.startedBy,
      operation: AuditOperation.PasswordRotated,
      description: pair ? `Scheduled rotation; member ${memberName} of pair ${head.name} is now current` : 'Scheduled rotation',
      onStored: async (m: EntityManager) => {
        if (pair) await this.switchTo(m, head, memberId, memberName, password);
        await m.query('UPDATE accounts SET last_rotation_run = $2, rotation_failed_at = NULL WHERE id = $1', [head.id, run.runId]);
        await this.events.record(m, {
          orgId: head.org_id,
          resource: head.resource_name,
          account: head.name,
          resourceId: head.resource_id,
          accountId: head.id,
          outcome: 'rotated',
          trigger: run.startedBy,
        });
      },
    });
  }

  /** The new member password must log in before reads answer it. */
  private async switchTo(m: EntityManager, head: RotatedAccount, memberId: number, memberName: string, password: string): Promise<void> {
    const target = { orgId: head.org_id, resourceId: head.resource_id, accountId: memberId, accountName: memberName, startedBy: `rotation of pair ${head.name}` };
    if (!(await this.logins.verify(target, password))) {
      throw new AppError(ErrorCode.Unavailable, `The new password of ${memberName} was set but does not log in yet; the pair still answers the other member`);
    }
    // The clock, not the transaction's start: the grace is counted from the switch readers see.
    await m.query('UPDATE accounts SET dual_current_id = $2, dual_switched_at = clock_timestamp() WHERE id = $1', [head.id, memberId]);
  }
}
