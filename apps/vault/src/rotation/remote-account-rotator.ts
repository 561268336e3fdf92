import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditOperation } from '@app/audit';
import { AppError, ErrorCode } from '@app/http';
import { REMOTE_PASSWORD_RESETTER, RemotePasswordResetter } from '../password-requests/remote-reset';
import { RemotePasswords } from '../remote-reset/remote-passwords';
import { AccountRotator, RotationDeferred, RotationRun } from './account-rotator';

interface RotatedAccount {
  id: number;
  name: string;
  resource_id: number;
  org_id: number;
  partner_id: number | null;
  partner_name: string | null;
  current_id: number | null;
  ready_at: Date | null;
}

/**
 * AccountRotator through the resource's connector (RemotePasswords: crash-safe, the
 * administrator credential through the gate): a new password from the account's policy,
 * changed on the target, stored as `Password Rotated` with its run and its event.
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
    private readonly remote: RemotePasswords,
    @Inject(REMOTE_PASSWORD_RESETTER) private readonly logins: RemotePasswordResetter,
  ) {}

  async rotate(run: RotationRun): Promise<void> {
    const [account]: RotatedAccount[] = await this.dataSource.query(
      `SELECT a.id, a.name, r.id AS resource_id, r.org_id, a.dual_partner_id AS partner_id, p.name AS partner_name, a.dual_current_id AS current_id,
         a.dual_switched_at + make_interval(secs => coalesce(a.dual_grace_minutes, 0) * 60) AS ready_at
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
    const pair = head.partner_id !== null;
    await this.remote.changeForServer(memberId, (account) => this.remote.generate(account), {
      startedBy: run.startedBy,
      description: pair ? `Scheduled rotation; member ${memberName} of pair ${head.name} is now current` : 'Scheduled rotation',
      operation: AuditOperation.PasswordRotated,
      rotationRun: run.runId,
      onStored: pair ? (m, password) => this.switchTo(m, head, memberId, memberName, password) : undefined,
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
