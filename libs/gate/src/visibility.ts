import { Actor } from '@app/audit';

/** What a share lets its holder do; each level includes the ones before it. */
export const ACCESS_LEVELS = ['view', 'modify', 'fullaccess'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/**
 * The share rows that reach user `uid` for resource `r`: shared to the user, or to a user
 * group the user belongs to. Columns: account_id (null = the whole resource), access_type.
 * Resource-group shares (issue 5) add their rows here, so every path below follows.
 */
function grantsSql(r: string, uid: string): string {
  const toCaller = `(g.user_id = ${uid} OR g.user_group_id IN (SELECT ugm.group_id FROM user_group_members ugm WHERE ugm.user_id = ${uid}))`;
  // A resource-group share grants the group's members: static lists and rule matches, kept
  // in resource_group_membership by triggers (migration ResourceGroupMembership).
  return `SELECT g.account_id, g.access_type FROM shares g
    WHERE g.resource_id = ${r}.id AND ${toCaller}
    UNION ALL SELECT NULL::int, g.access_type FROM resource_group_membership m JOIN shares g ON g.resource_group_id = m.group_id
    WHERE m.resource_id = ${r}.id AND ${toCaller}`;
}

/**
 * NoHelpDeskRetrieval (op 50): resource `r` belongs to a group whose passwords help-desk
 * users ("Password User") may not retrieve.
 */
export function helpdeskBlockedSql(r: string): string {
  return `EXISTS (SELECT 1 FROM resource_group_membership m JOIN resource_groups g ON g.id = m.group_id
    WHERE m.resource_id = ${r}.id AND g.no_helpdesk_retrieval)`;
}

/**
 * The one definition of "owned by or shared to the caller", as a SQL predicate over a
 * resource alias `r` (and, for account paths, an account alias). Parameters $org, $uid,
 * $super are given by position. Super admins see every resource of their organisation;
 * owners hold full access; others hold what their shares grant. An account-level share
 * makes the resource visible, but of its accounts only the shared ones. `atLeast` asks
 * for a share level (modify, fullaccess) instead of mere visibility; without `account`
 * it then means a level on the resource itself (a resource-level share). 'view' is
 * mere visibility.
 */
export function resourceVisibleSql(
  r: string,
  org: string,
  uid: string,
  superAdmin: string,
  options: { account?: string; atLeast?: AccessLevel } = {},
): string {
  const levels = ACCESS_LEVELS.slice(ACCESS_LEVELS.indexOf(options.atLeast ?? 'view'));
  const typeFilter = levels.length === ACCESS_LEVELS.length ? '' : ` AND s.access_type IN (${levels.map((l) => `'${l}'`).join(', ')})`;
  // Acting on the resource itself (atLeast without an account) needs a resource-level share.
  const accountFilter = options.account
    ? ` AND (s.account_id IS NULL OR s.account_id = ${options.account}.id)`
    : options.atLeast && options.atLeast !== 'view'
      ? ' AND s.account_id IS NULL'
      : '';
  return `(${r}.org_id = ${org} AND (${superAdmin} OR ${r}.owner_id = ${uid} OR EXISTS (
    SELECT 1 FROM (${grantsSql(r, uid)}) s WHERE true${typeFilter}${accountFilter})))`;
}

export function visibilityParams(actor: Actor): [number, number, boolean] {
  return [actor.orgId, actor.id, actor.isSuperAdmin];
}
