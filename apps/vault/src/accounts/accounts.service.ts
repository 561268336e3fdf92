import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { complianceProblems, isExpired, Keyring } from '@app/crypto';
import { AppError, reply, Reply } from '@app/http';
import { displayTime, orNA } from '../common/format';
import { resourceVisibleSql, visibilityParams } from '../common/visibility';
import { PoliciesService } from '../policies/policies.service';
import { customFieldsOf, PASSWORD_CONTEXT } from '../resources/resources.service';

@Injectable()
export class AccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly policies: PoliciesService,
  ) {}

  async details(actor: Actor, resourceId: number, accountId: number): Promise<Reply> {
    const [account] = await this.dataSource.query(
      `SELECT a.id, a.notes, a.password_policy, a.password, a.password_changed_at, a.updated_at,
         (SELECT max(created_at) FROM audit WHERE account_id = a.id AND operation = 'Password Retrieved') AS last_accessed
       FROM accounts a JOIN resources r ON r.id = a.resource_id
       WHERE a.id = $5 AND r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3')}`,
      [...visibilityParams(actor), resourceId, accountId],
    );
    if (!account) throw AppError.notFound('No such account found');
    const policy = await this.policies.find(actor.orgId, account.password_policy);
    // Compliance is checked on the server; the password itself is not returned.
    const password = (await this.keyring.open(account.password, PASSWORD_CONTEXT)).toString('utf8');
    const problems = policy ? complianceProblems(policy, password) : [];
    const expired = policy ? isExpired(policy, account.password_changed_at) : false;
    return reply('Account details fetched successfully', {
      DESCRIPTION: orNA(account.notes),
      PASSWDID: String(account.id),
      'PASSWORD STATUS': '****',
      'PASSWORD POLICY': account.password_policy,
      'EXPIRY STATUS': expired ? 'Expired' : 'Valid',
      'COMPLIANT STATUS': problems.length ? 'Non-Compliant' : 'Compliant',
      'COMPLIANT REASON': problems.length ? problems.join(', ') : '-',
      'LAST ACCESSED TIME': displayTime(account.last_accessed),
      'LAST MODIFIED TIME': displayTime(account.password_changed_at),
      PASSWORDREQUEST_REASON_MANDATORY: 'false',
      'CUSTOM FIELD': await customFieldsOf(this.dataSource.manager, resourceId, accountId),
    });
  }
}
