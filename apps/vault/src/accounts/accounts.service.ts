import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { isExpired, Keyring, PasswordPolicy } from '@app/crypto';
import { AppError, ErrorCode, reply, Reply } from '@app/http';
import { findAccount, findResource } from '../common/access';
import { bool, displayTime, orNA } from '../common/format';
import { AccountSecretGate, bindDestinations, guardMembershipMoves, resourceVisibleSql, visibilityParams, withMoves } from '@app/gate';
import { PoliciesService } from '../policies/policies.service';
import { customFieldsOf, insertCustomFields, mergeCustomFields, parseCustomFields } from '../resources/custom-fields';
import { PASSWORD_CONTEXT } from '@app/gate';
import { SettingsService } from '../settings/settings.service';
import { AddAccountsDto, EditAccountDto } from './account.dto';
import { parseAccountList } from './account-list-input';
import { inUseSql } from '@app/gate';
import { effectiveAccessControl } from '../password-requests/access-sql';
import { describeVerdict, verdictOf } from '../passwords/compliance';
import { ComplianceAssessor } from '../passwords/compliance-assessor';

// Exact texts clients match (two spaces in the duplicate message).
const ADDED = 'Account added successfully';
const DUPLICATE = 'Account is not added  as it already exists';

@Injectable()
export class AccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly policies: PoliciesService,
    private readonly settings: SettingsService,
    private readonly compliance: ComplianceAssessor,
    private readonly gate: AccountSecretGate,
  ) {}

  async details(actor: Actor, resourceId: number, accountId: number): Promise<Reply> {
    const [account] = await this.dataSource.query(
      `SELECT a.id, a.notes, a.password_policy, a.compliance_policy, a.compliance_problems, a.password_changed_at, a.updated_at,
         a.password_status, a.last_verified_at, a.rotation_failed_at,
         (SELECT max(created_at) FROM audit WHERE account_id = a.id AND operation = 'Password Retrieved') AS last_accessed,
         ${inUseSql('a', '$2')} AS in_use, coalesce(ac.reason_required, false) AS request_reason
       FROM accounts a JOIN resources r ON r.id = a.resource_id LEFT JOIN ${effectiveAccessControl('a')} ON true
       WHERE a.id = $5 AND r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}`,
      [...visibilityParams(actor), resourceId, accountId],
    );
    if (!account) throw AppError.notFound('No such account found');
    const policy = await this.policies.find(actor.orgId, account.password_policy);
    // The verdict made when the password was set: details never opens the password.
    const compliance = describeVerdict(account.password_policy, account);
    const expired = policy ? isExpired(policy, account.password_changed_at) : false;
    const settings = await this.settings.get(actor.orgId);
    return reply('Account details fetched successfully', {
      DESCRIPTION: orNA(account.notes),
      PASSWDID: String(account.id),
      'PASSWORD STATUS': account.in_use ? '[ In use ]' : '****',
      'PASSWORD POLICY': account.password_policy,
      'EXPIRY STATUS': expired ? 'Expired' : 'Valid',
      'COMPLIANT STATUS': compliance.status,
      'COMPLIANT REASON': compliance.reason,
      'LAST ACCESSED TIME': displayTime(account.last_accessed),
      'LAST MODIFIED TIME': displayTime(account.password_changed_at),
      // The last verification against the target (remote password reset); PASSWORD STATUS keeps its PAM360 meaning.
      // A scheduled rotation that failed after its retries shows until the next change on the target.
      'PASSWORD SYNC STATUS': account.rotation_failed_at ? 'ROTATION FAILED' : (account.password_status ?? 'NOT VERIFIED'),
      'LAST VERIFIED': displayTime(account.last_verified_at),
      PASSWORDREQUEST_REASON_MANDATORY: bool(settings.reasonRequired || account.request_reason),
      'CUSTOM FIELD': await customFieldsOf(this.dataSource.manager, resourceId, accountId),
    });
  }

  /** Op 20: shape errors fail the whole request; a duplicate name is reported per account. */
  async add(actor: Actor, resourceId: number, dto: AddAccountsDto): Promise<Reply> {
    const accounts = parseAccountList(dto.ACCOUNTLIST);
    const policiesByName = new Map<string, PasswordPolicy>();
    for (const a of accounts) {
      if (a.policy && !policiesByName.has(a.policy.toLowerCase())) {
        policiesByName.set(a.policy.toLowerCase(), await this.policies.require(actor.orgId, a.policy, 'ACCOUNTPASSWORDPOLICY'));
      }
    }
    const statuses: Record<string, { STATUS: string }>[] = [];
    let added = 0;
    const addedIds: number[] = [];
    await this.gate.transaction(actor, async (m) => {
      const resource = await findResource(m, actor, resourceId, 'fullaccess', true);
      // A name on a managed resource is a principal the administrator credential will act on.
      const admin = await this.gate.authorizeRedirect(m, actor, resource.id, { reason: dto.REASON, ticketId: dto.TICKETID });
      const resourcePolicy = await this.policies.find(actor.orgId, resource.password_policy);
      // New names can move the resource into or out of groups whose rules read account names.
      const { moves } = await guardMembershipMoves(m, actor, [resource.id], async () => {
        for (const a of accounts) {
          const policy = a.policy ? policiesByName.get(a.policy.toLowerCase()) : resourcePolicy;
          const verdict = verdictOf(policy, policy?.name ?? resource.password_policy, a.password);
          const [row] = await m.query(
            `INSERT INTO accounts (resource_id, name, name_key, notes, password_policy, password, password_changed_at, compliance_policy, compliance_problems)
             VALUES ($1, $2, lower($2), $3, $4, $5, now(), $4, $6) ON CONFLICT (resource_id, name_key) DO NOTHING RETURNING id`,
            [resource.id, a.name, a.notes, verdict.policy, this.keyring.seal(a.password, PASSWORD_CONTEXT), verdict.problems],
          );
          statuses.push({ [a.name]: { STATUS: row ? ADDED : DUPLICATE } });
          if (!row) continue;
          added += 1;
          addedIds.push(row.id);
          await insertCustomFields(m, resource.id, row.id, a.customFields);
          await this.audit.record(
            { category: 'Resource', operation: AuditOperation.AccountAdded, actor, resourceId: resource.id, resourceName: resource.name, accountId: row.id, accountName: a.name },
            m,
          );
        }
      });
      if (moves.description) await this.recordMoves(m, actor, resource.id, resource.name, moves.description);
      if (admin && addedIds.length) await bindDestinations(m, this.audit, actor, resource.id, `added by ${actor.username} (decided on administrator account ${admin.name})`, addedIds);
    });
    if (added === 0) throw new AppError(ErrorCode.Conflict, 'No account was added: every name already exists', statuses);
    return reply('Account(s) added successfully', statuses);
  }

  /**
   * Op 21: name, policy, notes and account custom fields; needs modify access to the account.
   * The name is the principal on the target whose password the server sets with the
   * resource's administrator credential (rotation, the reset after a check-in): on a resource
   * with an administrator, renaming (case included: PostgreSQL roles are case-sensitive) is
   * the gate's 'redirect' decision, as EDIT RESOURCE's DNS name is.
   */
  async edit(actor: Actor, resourceId: number, accountId: number, dto: EditAccountDto): Promise<Reply> {
    const fields = parseCustomFields(dto.ACCOUNTCUSTOMFIELD, 'account');
    const policy = dto.ACCOUNTPASSWORDPOLICY ? (await this.policies.require(actor.orgId, dto.ACCOUNTPASSWORDPOLICY, 'ACCOUNTPASSWORDPOLICY')).name : undefined;
    const name = await this.gate.transaction(actor, async (m) => {
      const account = await findAccount(m, actor, resourceId, accountId, 'modify', true);
      const newName = dto.ACCOUNTNAME?.trim() || account.name;
      if (newName.toLowerCase() !== account.name.toLowerCase()) {
        const [clash] = await m.query('SELECT id FROM accounts WHERE resource_id = $1 AND name_key = lower($2)', [account.resource_id, newName]);
        if (clash) throw AppError.conflict(`Account ${newName} already exists in resource ${account.resource_name}`);
      }
      const admin = newName !== account.name ? await this.gate.authorizeRedirect(m, actor, account.resource_id, { reason: dto.REASON, ticketId: dto.TICKETID }) : null;
      // A new name can move the resource into or out of groups whose rules read account names.
      const { moves } = await guardMembershipMoves(m, actor, [account.resource_id], () =>
        m.query('UPDATE accounts SET name = $2, name_key = lower($2), notes = $3, password_policy = $4, updated_at = now() WHERE id = $1', [
          account.id,
          newName,
          dto.NOTES ?? account.notes,
          policy ?? account.password_policy,
        ]),
      );
      await mergeCustomFields(m, account.resource_id, account.id, fields, 'account');
      if (admin) await bindDestinations(m, this.audit, actor, account.resource_id, `renamed by ${actor.username} (decided on administrator account ${admin.name})`, [account.id]);
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.AccountModified,
          actor,
          resourceId: account.resource_id,
          resourceName: account.resource_name,
          accountId: account.id,
          accountName: newName,
          description: withMoves(newName !== account.name ? `renamed from ${account.name}` : '', moves),
        },
        m,
      );
      return newName;
    });
    if (policy) await this.compliance.afterPolicyChange(actor, resourceId, accountId);
    return reply(`Account ${name} modified successfully`);
  }

  /** Op 18: removes the account with its password history and files; the audit trail stays. */
  async delete(actor: Actor, resourceId: number, accountId: number): Promise<Reply> {
    const name = await this.dataSource.transaction(async (m) => {
      const account = await findAccount(m, actor, resourceId, accountId, 'fullaccess', true);
      const { moves } = await guardMembershipMoves(m, actor, [account.resource_id], () => m.query('DELETE FROM accounts WHERE id = $1', [account.id]));
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.AccountDeleted,
          actor,
          resourceId: account.resource_id,
          resourceName: account.resource_name,
          accountId: account.id,
          accountName: account.name,
          description: moves.description,
        },
        m,
      );
      return account.name;
    });
    return reply(`Account ${name} deleted successfully`);
  }

  /** An allowed membership move made by adding accounts, in its own audit row. */
  private recordMoves(m: EntityManager, actor: Actor, resourceId: number, resourceName: string, description: string) {
    return this.audit.record({ category: 'Resource', operation: AuditOperation.ResourceModified, actor, resourceId, resourceName, description }, m);
  }
}
