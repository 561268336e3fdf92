import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { isAdministrativeRole } from '@app/auth';
import { AppError, reply, Reply } from '@app/http';
import { bool } from '../common/format';
import { resourceVisibleSql, visibilityParams } from '@app/gate';
import { AccessControlDto } from './access-control.dto';
import { AccessControlTarget, applyAccessControl } from './access-control.settings';
import { effectiveAccessControl } from './access-sql';

/** The extra operation: put an account, or every account of a resource, under access control. */
@Injectable()
export class AccessControlService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  configure(actor: Actor, resourceId: number, accountId: number | null, dto: AccessControlDto): Promise<Reply> {
    return this.dataSource.transaction(async (m) => {
      const target = await this.lockTarget(m, actor, resourceId, accountId);
      return reply(await applyAccessControl(m, this.audit, actor, target, dto));
    });
  }

  /** The settings that apply (the account's own, else its resource's). */
  async show(actor: Actor, resourceId: number, accountId: number): Promise<Reply> {
    const [row] = await this.dataSource.query(
      `SELECT ac.*, CASE WHEN ac.account_id IS NULL THEN 'RESOURCE' ELSE 'ACCOUNT' END AS level,
         ARRAY(SELECT username FROM users WHERE id = ANY(ac.approver_user_ids) ORDER BY username) AS users,
         ARRAY(SELECT name FROM user_groups WHERE id = ANY(ac.approver_group_ids) ORDER BY name) AS groups
       FROM accounts a JOIN resources r ON r.id = a.resource_id LEFT JOIN ${effectiveAccessControl('a')} ON true
       WHERE a.id = $5 AND r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}`,
      [...visibilityParams(actor), resourceId, accountId],
    );
    if (!row) throw AppError.notFound('No such account found');
    if (!row.id) return reply('Access control is not enabled for this account', { ENABLED: 'false' });
    return reply('Access control fetched successfully', {
      ENABLED: 'true',
      LEVEL: row.level,
      APPROVAL_REQUIRED: bool(row.approval_required),
      APPROVERS_REQUIRED: String(row.approvers_required),
      ADMINS_APPROVE: bool(row.admins_approve),
      APPROVER_USERS: row.users.join(','),
      APPROVER_GROUPS: row.groups.join(','),
      EXCLUSIVE: bool(row.exclusive),
      CHECKOUT_MINUTES: String(row.checkout_minutes),
      REQUEST_TTL_MINUTES: String(row.request_ttl_minutes),
      RESET_AFTER_CHECKIN: bool(row.reset_after_checkin),
      REASON_REQUIRED: bool(row.reason_required),
    });
  }

  /**
   * Owners and administrators configure; others get the answer a missing resource gets. Access
   * control is what stands between a share and the password, so changing it (or turning it
   * off) also needs full access to what it guards (issue 24): an administrator who merely
   * sees the account cannot lift it for themselves. Refusals are audited.
   */
  private async lockTarget(m: EntityManager, actor: Actor, resourceId: number, accountId: number | null): Promise<AccessControlTarget> {
    const full = resourceVisibleSql('r', '$1', '$2', '$3', accountId === null ? { atLeast: 'fullaccess' } : { account: 'a', atLeast: 'fullaccess' });
    const [row] = await m.query(
      `SELECT r.id, r.name, r.org_id, r.owner_id, a.id AS account_id, a.name AS account_name, ${full} AS full
       FROM resources r LEFT JOIN accounts a ON a.resource_id = r.id AND a.id = $5
       WHERE r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3')} FOR UPDATE OF r`,
      [...visibilityParams(actor), resourceId, accountId],
    );
    if (!row) throw AppError.notFound('No such resource found');
    if (accountId !== null && !row.account_id) throw AppError.notFound('No such account found');
    if (row.owner_id !== actor.id && !actor.isSuperAdmin && !isAdministrativeRole(actor.role)) {
      throw AppError.forbidden('Only the owner of the resource or an administrator can configure access control');
    }
    const target = { orgId: row.org_id, resourceId: row.id, resourceName: row.name, accountId, accountName: row.account_name ?? '' };
    if (!row.full) {
      const what = accountId === null ? `resource ${row.name}` : `account ${row.account_name}`;
      // On its own connection: the refusal outlives this transaction's rollback.
      await this.audit.record({
        category: 'Resource',
        operation: AuditOperation.AccessControlConfigured,
        outcome: 'Failed',
        actor,
        resourceId: row.id,
        resourceName: row.name,
        accountId,
        accountName: target.accountName,
        description: `refused: no full access to ${what}`,
      });
      throw AppError.forbidden(`You need full access to ${what} to configure its access control`);
    }
    return target;
  }
}
