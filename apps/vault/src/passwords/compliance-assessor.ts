import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { AccountSecretGate } from '@app/gate';
import { AppError } from '@app/http';
import { PoliciesService } from '../policies/policies.service';
import { verdictOf } from './compliance';

/**
 * After an account's policy was switched, its stored verdict is for another policy. A new
 * one tells the switcher the password's length and character classes, so it is made only
 * on the gate's decision that this caller may have them (use 'assess', decided as a read:
 * share, access control and check-out holder, help-desk rule, reason), audited grant or
 * refusal. Refused, the verdict stays unknown until the password next changes.
 */
@Injectable()
export class ComplianceAssessor {
  constructor(
    private readonly dataSource: DataSource,
    private readonly gate: AccountSecretGate,
    private readonly policies: PoliciesService,
  ) {}

  async afterPolicyChange(actor: Actor, resourceId: number, accountId: number): Promise<void> {
    const [row] = await this.dataSource.query(
      `SELECT lower(btrim(password_policy)) IS NOT DISTINCT FROM lower(btrim(compliance_policy)) AS current
       FROM accounts WHERE id = $1 AND resource_id = $2`,
      [accountId, resourceId],
    );
    if (!row || row.current) return;
    let opened: Awaited<ReturnType<AccountSecretGate['openPassword']>>;
    try {
      opened = await this.gate.openPassword(actor, { use: 'assess', resourceId, accountId }, 'after a password policy change');
    } catch (error) {
      // The gate has audited its refusal; the edit itself stands.
      if (error instanceof AppError) return;
      throw error;
    }
    const { account, password } = opened;
    const verdict = verdictOf(await this.policies.find(account.org_id, account.password_policy), account.password_policy, password);
    // Only over the password and policy assessed: a change meanwhile made its own verdict.
    await this.dataSource.query(
      'UPDATE accounts SET compliance_policy = $2, compliance_problems = $3 WHERE id = $1 AND password = $4 AND password_policy = $2',
      [account.id, verdict.policy, verdict.problems, account.password],
    );
  }
}
