import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditOperation } from '@app/audit';
import { DEFAULT_POLICY_NAME, findBuiltinPolicy, generatePassword } from '@app/crypto';
import { AppError } from '@app/http';
import { SshRemoteReset } from '../pki-subset/ssh-remote-reset';
import { PoliciesService } from '../policies/policies.service';
import { AccountRotator, RotationRun } from './account-rotator';
import { RotationEvents } from './rotation-events';

/** AccountRotator through the resource's remote reset: a new password from the account's policy. */
@Injectable()
export class RemoteAccountRotator implements AccountRotator {
  constructor(
    private readonly dataSource: DataSource,
    private readonly remote: SshRemoteReset,
    private readonly policies: PoliciesService,
    private readonly events: RotationEvents,
  ) {}

  async rotate(run: RotationRun): Promise<void> {
    const [account] = await this.dataSource.query(
      `SELECT a.name, a.password_policy, r.id AS resource_id, r.name AS resource_name, r.org_id
       FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE a.id = $1`,
      [run.accountId],
    );
    if (!account) throw AppError.notFound('The account no longer exists');
    const policy = (await this.policies.find(account.org_id, account.password_policy)) ?? findBuiltinPolicy(DEFAULT_POLICY_NAME)!;
    await this.remote.resetRemotePassword(run.accountId, generatePassword(policy), {
      actor: null,
      operation: AuditOperation.PasswordRotated,
      description: `By the ${run.startedBy}`,
      onStored: async (m) => {
        await m.query('UPDATE accounts SET last_rotation_run = $2, rotation_failed_at = NULL WHERE id = $1', [run.accountId, run.runId]);
        await this.events.record(m, {
          orgId: account.org_id,
          resource: account.resource_name,
          account: account.name,
          resourceId: account.resource_id,
          accountId: run.accountId,
          outcome: 'rotated',
          trigger: run.startedBy,
        });
      },
    });
  }
}
