import { Actor } from '@app/audit';
import { isAdministrativeRole, Permission, roleHas } from '@app/auth';

// SQL fragments of the workflow, in one place so that every statement asks the same
// questions the same way. Aliases and parameter positions are passed in. The check-out
// state itself (who holds an account) is the gate's: @app/gate checkout-state.

/** The access control that applies to an account: its own row, else its resource's. */
export function effectiveAccessControl(a: string, alias = 'ac'): string {
  return `LATERAL (SELECT * FROM access_controls x WHERE x.resource_id = ${a}.resource_id
    AND (x.account_id = ${a}.id OR x.account_id IS NULL) ORDER BY x.account_id NULLS LAST LIMIT 1) ${alias}`;
}

/** How the caller's role lets them approve when administrators approve. */
export type AdminApprover = 'org' | 'owner' | 'none';

export function adminApprover(actor: Actor): AdminApprover {
  if (isAdministrativeRole(actor.role)) return 'org';
  return roleHas(actor.role, Permission.RequestApprove) ? 'owner' : 'none';
}

/**
 * Whether user `uid` may decide on requests for resource `r` under access control `ac`:
 * administrators of the organisation (a password administrator only for resources they
 * own) when administrators approve, plus the named users and groups.
 */
export function approverSql(ac: string, r: string, uid: string, kind: string): string {
  return `((${ac}.admins_approve AND (${kind} = 'org' OR (${kind} = 'owner' AND ${r}.owner_id = ${uid})))
    OR ${uid} = ANY(${ac}.approver_user_ids)
    OR EXISTS (SELECT 1 FROM user_group_members gm WHERE gm.user_id = ${uid} AND gm.group_id = ANY(${ac}.approver_group_ids)))`;
}

/** Minutes (fractions allowed) as an interval. */
export function minutesSql(minutes: string): string {
  return `make_interval(secs => ${minutes} * 60)`;
}

/** PostgreSQL unique violation, as TypeORM or pg report it. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; driverError?: { code?: string } };
  return e?.code === '23505' || e?.driverError?.code === '23505';
}
