import { EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError } from '@app/http';
import { AccessControlDto } from './access-control.dto';

export interface AccessControlTarget {
  orgId: number;
  resourceId: number;
  resourceName: string;
  /** null: every account of the resource. */
  accountId: number | null;
  accountName: string;
}

/**
 * Writes (or removes) the access control of an account or resource with its audit row,
 * inside the caller's transaction. Shared by the API and the admin command.
 */
export async function applyAccessControl(
  m: EntityManager,
  audit: AuditWriter,
  actor: Actor | null,
  target: AccessControlTarget,
  dto: AccessControlDto,
): Promise<string> {
  const level = target.accountId === null ? `resource ${target.resourceName}` : `account ${target.accountName}`;
  const event = {
    category: 'Resource' as const,
    operation: AuditOperation.AccessControlConfigured,
    actor,
    orgId: target.orgId,
    resourceId: target.resourceId,
    resourceName: target.resourceName,
    accountId: target.accountId,
    accountName: target.accountName,
  };
  if (dto.ENABLED === false) {
    await m.query(
      'DELETE FROM access_controls WHERE resource_id = $1 AND account_id IS NOT DISTINCT FROM $2',
      [target.resourceId, target.accountId],
    );
    await audit.record({ ...event, description: 'Access control removed' }, m);
    return `Access control removed from ${level}`;
  }
  const users = await namesToIds(m, target.orgId, 'users', 'username_key', dto.APPROVER_USERS, 'APPROVER_USERS', 'user');
  const groups = await namesToIds(m, target.orgId, 'user_groups', 'name_key', dto.APPROVER_GROUPS, 'APPROVER_GROUPS', 'user group');
  const values = [
    target.resourceId,
    target.accountId,
    dto.APPROVAL_REQUIRED ?? true,
    dto.APPROVERS_REQUIRED ?? 1,
    dto.ADMINS_APPROVE ?? true,
    users,
    groups,
    dto.EXCLUSIVE ?? true,
    dto.CHECKOUT_MINUTES ?? 30,
    dto.REQUEST_TTL_MINUTES ?? 1440,
    dto.RESET_AFTER_CHECKIN ?? false,
    dto.REASON_REQUIRED ?? false,
    actor?.id ?? null,
  ];
  const conflict = target.accountId === null ? '(resource_id) WHERE account_id IS NULL' : '(resource_id, account_id) WHERE account_id IS NOT NULL';
  await m.query(
    `INSERT INTO access_controls (resource_id, account_id, approval_required, approvers_required, admins_approve,
       approver_user_ids, approver_group_ids, exclusive, checkout_minutes, request_ttl_minutes, reset_after_checkin, reason_required,
       approvers_changed_by, approvers_changed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now())
     ON CONFLICT ${conflict} DO UPDATE SET approval_required = $3, approvers_required = $4, admins_approve = $5,
       approver_user_ids = $6, approver_group_ids = $7, exclusive = $8, checkout_minutes = $9, request_ttl_minutes = $10,
       reset_after_checkin = $11, reason_required = $12, updated_at = now(),
       -- Who changed the approvers last (issue 34): the workflow discounts approvals the requester arranged.
       approvers_changed_by = CASE WHEN access_controls.approver_user_ids IS DISTINCT FROM $6 OR access_controls.approver_group_ids IS DISTINCT FROM $7
         THEN $13 ELSE access_controls.approvers_changed_by END,
       approvers_changed_at = CASE WHEN access_controls.approver_user_ids IS DISTINCT FROM $6 OR access_controls.approver_group_ids IS DISTINCT FROM $7
         THEN now() ELSE access_controls.approvers_changed_at END`,
    values,
  );
  const description = [
    `approval ${values[2] ? `by ${values[3]}` : 'not required'}`,
    `exclusive ${values[7]}`,
    `check-out ${values[8]} min`,
    `reset after check-in ${values[10]}`,
  ].join(', ');
  await audit.record({ ...event, description: `Access control set: ${description}` }, m);
  return `Access control configured for ${level}`;
}

async function namesToIds(
  m: EntityManager,
  orgId: number,
  table: 'users' | 'user_groups',
  keyColumn: string,
  list: string | undefined,
  field: string,
  label: string,
): Promise<number[]> {
  const names = (list ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  if (!names.length) return [];
  const rows: { id: number; key: string }[] = await m.query(
    `SELECT id, ${keyColumn} AS key FROM ${table} WHERE org_id = $1 AND ${keyColumn} = ANY($2)`,
    [orgId, names.map((n) => n.toLowerCase())],
  );
  const missing = names.find((n) => !rows.some((r) => r.key === n.toLowerCase()));
  if (missing) throw AppError.invalid(`${field}: no ${label} named ${missing}`);
  return rows.map((r) => r.id);
}
