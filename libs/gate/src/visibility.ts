import { Actor } from '@app/audit';

/** What a share lets its holder do; each level includes the ones before it. */
export const ACCESS_LEVELS = ['view', 'modify', 'fullaccess'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/**
 * A share row `g` made to user `uid` or to a user group the user belongs to. The user's groups
 * are users.user_group_ids (kept from user_group_members by a trigger, migration
 * CallerGateColumns), or `groups`, that column as already read by the statement.
 */
function toCallerSql(uid: string, groups = `(SELECT gu.user_group_ids FROM users gu WHERE gu.id = ${uid})::int[]`): string {
  return `(g.user_id = ${uid} OR g.user_group_id = ANY (${groups}))`;
}

/**
 * Whether a share reaches user `uid` for resource `r`, as two tests: shares of the resource
 * (or of one of its accounts, as `accountFilter` allows), and shares of a resource group `r`
 * belongs to (static lists and rule matches, kept in resource_group_membership by triggers).
 * The caller's user groups and the resource groups shared to the caller are uncorrelated
 * arrays, which PostgreSQL computes once per statement (InitPlans): a list of 20,000
 * resources then costs two index probes per resource, not a scan of every group share per
 * resource (a plain IN became a semi-join repeated per resource).
 */
function grantedSql(r: string, uid: string, typeFilter: string, accountFilter: string, groups?: string, probe = ''): string {
  return `${sharedToCallerSql(r, uid, typeFilter, accountFilter, groups, probe)}
    OR EXISTS (SELECT 1 FROM resource_group_membership m WHERE m.resource_id = ${r}.id AND m.group_id = ANY (ARRAY(
      SELECT g.resource_group_id FROM shares g WHERE g.resource_group_id IS NOT NULL AND ${toCallerSql(uid, groups)}${typeFilter}))${probe})`;
}

/** A share of resource `r` (or of one of its accounts) to user `uid` or one of their user groups. */
function sharedToCallerSql(r: string, uid: string, typeFilter: string, accountFilter: string, groups?: string, probe = ''): string {
  return `EXISTS (SELECT 1 FROM shares g WHERE g.resource_id = ${r}.id AND ${toCallerSql(uid, groups)}${typeFilter}${accountFilter}${probe})`;
}

/**
 * Ends each EXISTS of the `probe` form. PostgreSQL may run an EXISTS as a hashed subplan: every
 * matching row of the table hashed once per statement, then one look-up per resource. That
 * suits a test of every resource of a list; for a test the statement makes of a few rows only,
 * hashing every resource the caller's resource groups hold (20,000 for a wide user) costs
 * more than the whole rest of a page. PostgreSQL never hashes an EXISTS with an OFFSET, so
 * the probe form tests each resource with index probes.
 */
const PROBE_ONLY = ' OFFSET 0';

/**
 * NoHelpDeskRetrieval (op 50): resource `r` belongs to a group whose passwords help-desk
 * users ("Password User") may not retrieve. Those groups' ids are kept on the organisation's
 * row by a trigger (organizations.no_helpdesk_group_ids, migration NoHelpdeskGroupIds);
 * `groups` is that column when the statement has read it.
 */
export function helpdeskBlockedSql(r: string, groups = `(SELECT ho.no_helpdesk_group_ids FROM organizations ho WHERE ho.id = ${r}.org_id)::int[]`): string {
  return `EXISTS (SELECT 1 FROM resource_group_membership m WHERE m.resource_id = ${r}.id AND m.group_id = ANY (${groups}))`;
}

/**
 * The one definition of "owned by or shared to the caller", as a SQL predicate over a
 * resource alias `r` (and, for account paths, an account alias). Parameters $org, $uid,
 * $super are given by position. Super admins see every resource of their organisation;
 * owners hold full access; others hold what their shares grant. An account-level share
 * makes the resource visible, but of its accounts only the shared ones. `atLeast` asks
 * for a share level (modify, fullaccess) instead of mere visibility; without `account`
 * it then means a level on the resource itself (a resource-level share). 'view' is
 * mere visibility. `wholeResource` asks whether every account is visible (no account-level
 * share counts). `groups` is the caller's users.user_group_ids when the statement has read it.
 */
export function resourceVisibleSql(
  r: string,
  org: string,
  uid: string,
  superAdmin: string,
  options: VisibilityOptions = {},
): string {
  const { typeFilter, accountFilter } = shareFilters(options);
  const probe = options.probe ? PROBE_ONLY : '';
  return `(${r}.org_id = ${org} AND (${superAdmin} OR ${r}.owner_id = ${uid} OR ${grantedSql(r, uid, typeFilter, accountFilter, options.groups, probe)}))`;
}

/**
 * Whether an account-level share of resource `r` reaches user `uid` (directly or through a
 * user group). The shares are an uncorrelated set, which PostgreSQL hashes once per statement:
 * a list tests each resource with one probe. Of a visible resource, every account is visible
 * unless this holds (its visibility may then come from those shares alone).
 */
export function accountSharedSql(r: string, uid: string, groups?: string): string {
  return `${r}.id IN (SELECT g.resource_id FROM shares g WHERE g.account_id IS NOT NULL AND g.resource_id IS NOT NULL AND ${toCallerSql(uid, groups)})`;
}

/**
 * The part of resourceVisibleSql that needs no resource group: super administrator, owner,
 * or a share made to user `uid` or to one of their user groups. It implies
 * resourceVisibleSql with the same options, never the reverse: a quick test whose "no" is
 * not an answer.
 */
export function visibleWithoutResourceGroupsSql(r: string, org: string, uid: string, superAdmin: string, options: VisibilityOptions & { account: string }): string {
  const { typeFilter, accountFilter } = shareFilters(options);
  return `(${r}.org_id = ${org} AND (${superAdmin} OR ${r}.owner_id = ${uid} OR ${sharedToCallerSql(r, uid, typeFilter, accountFilter, options.groups)}))`;
}

export interface VisibilityOptions {
  account?: string;
  atLeast?: AccessLevel;
  wholeResource?: boolean;
  groups?: string;
  /** The statement tests only a few of the resources it reads (see PROBE_ONLY): index probes, never a hash of every share. */
  probe?: boolean;
}

/** The share conditions resourceVisibleSql's options ask for, over share alias `g`. */
function shareFilters(options: VisibilityOptions): { typeFilter: string; accountFilter: string } {
  const levels = ACCESS_LEVELS.slice(ACCESS_LEVELS.indexOf(options.atLeast ?? 'view'));
  const typeFilter = levels.length === ACCESS_LEVELS.length ? '' : ` AND g.access_type IN (${levels.map((l) => `'${l}'`).join(', ')})`;
  // Acting on the resource itself (atLeast without an account) needs a resource-level share.
  const accountFilter = options.account
    ? ` AND (g.account_id IS NULL OR g.account_id = ${options.account}.id)`
    : options.wholeResource || (options.atLeast && options.atLeast !== 'view')
      ? ' AND g.account_id IS NULL'
      : '';
  return { typeFilter, accountFilter };
}

export function visibilityParams(actor: Actor): [number, number, boolean] {
  return [actor.orgId, actor.id, actor.isSuperAdmin];
}
