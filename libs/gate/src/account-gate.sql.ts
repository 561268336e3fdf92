import { CALLER_COLUMNS, CALLER_FROM } from '@app/auth';
import { AccountUseRule } from './secret-use';
import { accessRefusalSql, heldFromSql, underAccessControlSql } from './checkout-state';
import { GateSetting, settingSql } from './settings-sql';
import { helpdeskBlockedSql, resourceVisibleSql, visibleWithoutResourceGroupsSql } from './visibility';

/**
 * What a decision with `callerColumns` takes from its caller CTE: the organisation's gate
 * settings and help-desk groups, and the user's groups (copies kept by triggers, see
 * migrations CallerGateColumns and NoHelpdeskGroupIds), over CALLER_FROM's aliases o and u.
 */
export const CALLER_GATE_COLUMNS = 'o.reason_required, o.ticketing_enabled, o.no_helpdesk_group_ids, u.user_group_ids';

/** Parameter positions of a gate statement; callers place the caller CTE's own before them. */
export interface GateSlots {
  rid: string;
  aid: string;
  ip: string;
  client: string;
  reason: string;
  ticket: string;
}

/**
 * The decision on one account's secret, as CTEs after a `caller` CTE (id, org_id,
 * is_super_admin, username, role). `verdict` has one row when the caller may see the
 * account, with `refusal` NULL when the use is granted, else why not. `locate` is an SQL
 * expression over aliases a and r naming the stored object a use needs (a file): the
 * use is refused as MISSING without one.
 *
 * `quick` makes the same decision with only the cheap tests, for the hot read and change:
 * ownership, or a share at the use's level to the caller or their user groups (no
 * resource-group shares), and an account under access control refused as 'UNDECIDED' (no
 * look at requests). Its grant is therefore always a grant of the full decision; its
 * refusals mean nothing and the caller asks the full decision instead (which audits). It is
 * `verdict` alone, with no `target` before it: executor start-up of the full plan cost more
 * than running it, and every CTE level adds to it (one level fewer, with the read's caller
 * in one CTE: PostgreSQL's time per read 0.225 → 0.21 ms in the read benchmark).
 * Uses that act on the whole resource (scope 'resource') have no quick form. `admitted`
 * (quick only) is a condition on the caller CTE `c` the decision also requires, for a
 * caller CTE that holds callers SQL alone does not admit.
 *
 * `verdict` also carries the account row's version (its xmin): a write made in the same
 * statement without a lock taken before it compares it with the row it updates, so an
 * UPDATE that waited on a concurrent writer changes nothing (see changeAtOnce).
 *
 * `callerColumns`: the caller CTE also carries CALLER_GATE_COLUMNS, as read with the token,
 * so the decision opens neither organizations nor users again.
 */
export function decisionCtes(
  rule: AccountUseRule,
  p: GateSlots,
  locate?: string,
  options: { quick?: boolean; callerColumns?: boolean; admitted?: string } = {},
): string {
  if (options.quick) return quickVerdictCte(rule, p, locate, options);
  const groups = options.callerColumns ? 'c.user_group_ids' : undefined;
  const visible = resourceVisibleSql('r', 'c.org_id', 'c.id', 'c.is_super_admin', { account: 'a', groups });
  const level =
    rule.need === 'view'
      ? 'true'
      : resourceVisibleSql('r', 'c.org_id', 'c.id', 'c.is_super_admin', rule.scope === 'account' ? { account: 'a', atLeast: rule.need, groups } : { atLeast: rule.need, groups });
  // MATERIALIZED: otherwise the planner inlines `target` and evaluates the access
  // expression once per reference (three times); measured 15% more reads per second.
  return `target AS MATERIALIZED (
  SELECT ${accountColumns(rule)},
         ${level} AS level_ok,
         ${rule.answersCurrentMember ? `coalesce(${accessRefusalSql('a', 'r', 'c.id')}, ${memberAccessRefusalSql()})` : accessRefusalSql('a', 'r', 'c.id')} AS access_refusal,
         (c.role = 'Password User' AND ${helpdeskBlockedSql('r', options.callerColumns ? 'c.no_helpdesk_group_ids' : undefined)}) AS helpdesk_blocked,
         ${locate ?? 'NULL::bigint'} AS locator,
         ${gateSetting('reason_required', options)} AS reason_required, ${gateSetting('ticketing_enabled', options)} AS ticketing_enabled
  FROM ${ACCOUNT_FROM}
  WHERE a.id = ${p.aid} AND r.id = ${p.rid} AND ${visible}
), verdict AS (
  SELECT t.*, ${refusalSql(p, {
    level: 't.level_ok',
    access: 't.access_refusal',
    helpdesk: 't.helpdesk_blocked',
    reasonRequired: 't.reason_required',
    ticketing: 't.ticketing_enabled',
    locator: locate ? 't.locator' : undefined,
  })} AS refusal
  FROM target t
)`;
}

/** decisionCtes' quick form: one CTE, the cheap tests inline. */
function quickVerdictCte(rule: AccountUseRule, p: GateSlots, locate: string | undefined, options: { callerColumns?: boolean; admitted?: string }): string {
  if (rule.scope !== 'account' || locate) throw new Error('A quick decision is only made for uses of one account, with nothing to locate');
  const groups = options.callerColumns ? 'c.user_group_ids' : undefined;
  // Visibility and level in one test: the quick decision sees only the accounts it grants the use's level on.
  const visible = visibleWithoutResourceGroupsSql('r', 'c.org_id', 'c.id', 'c.is_super_admin', { account: 'a', groups, ...(rule.need === 'view' ? {} : { atLeast: rule.need }) });
  return `verdict AS (
  SELECT ${accountColumns(rule)},
         ${refusalSql(p, {
           // Under access control the quick decision does not look at requests and check-outs.
           access: `CASE WHEN ${underAccessControlSql('a', 'r')}${rule.answersCurrentMember ? ` OR ${memberControlledSql()}` : ''} THEN 'UNDECIDED' END`,
           helpdesk: `(c.role = 'Password User' AND ${helpdeskBlockedSql('r', options.callerColumns ? 'c.no_helpdesk_group_ids' : undefined)})`,
           reasonRequired: gateSetting('reason_required', options),
           ticketing: gateSetting('ticketing_enabled', options),
         })} AS refusal
  FROM ${ACCOUNT_FROM}
  WHERE ${options.admitted ? `${options.admitted} AND ` : ''}a.id = ${p.aid} AND r.id = ${p.rid} AND ${visible}
)`;
}

/**
 * What a decision reads of the account and the caller (aliases a, r and c). A read of a
 * pair's head answers its current member; the member's row is read only for a pair (the
 * CASE reaches the subquery only then), so other reads pay nothing for it.
 */
function accountColumns(rule: AccountUseRule): string {
  const password = rule.answersCurrentMember
    ? `CASE WHEN a.dual_current_id IS NULL THEN a.password ELSE coalesce((SELECT m.password FROM accounts m WHERE m.id = a.dual_current_id), a.password) END AS password,
         CASE WHEN a.dual_current_id IS NOT NULL THEN (SELECT m.name FROM accounts m WHERE m.id = a.dual_current_id) END AS member_name`
    : 'a.password, NULL::text AS member_name';
  return `a.id, a.xmin AS version, a.name, ${password}, a.password_fingerprint, a.password_policy, r.id AS rid, r.name AS rname, r.org_id, c.id AS uid, c.username`;
}
const ACCOUNT_FROM = 'caller c CROSS JOIN accounts a JOIN resources r ON r.id = a.resource_id';

/**
 * A pair read releases the current member's password, so the member's access control holds
 * on it: when the head is not under access control (it was put on the partner, or taken off
 * the head, after pairing) the read needs the member's own check-out, as a read of the
 * member does. A head under access control decides for the pair (its check-out is the one
 * CONFIGURE DUAL ACCOUNT requires), except that a member someone else holds exclusively
 * (or that is being reset after its check-in) is in use for the head's readers too. Only a
 * pair whose current member is the other account reaches the subquery.
 */
function memberAccessRefusalSql(): string {
  return `CASE WHEN a.dual_current_id IS NOT NULL AND a.dual_current_id <> a.id THEN (
    SELECT CASE
      WHEN NOT ${underAccessControlSql('a', 'r')} THEN ${accessRefusalSql('m', 'r', 'c.id')}
      WHEN ${underAccessControlSql('m', 'r')} AND EXISTS (SELECT 1 FROM password_requests p WHERE p.account_id = m.id AND p.exclusive AND ${heldFromSql('p', 'c.id')}) THEN 'IN_USE'
    END FROM accounts m WHERE m.id = a.dual_current_id) END`;
}

/** Whether the read of a pair's head answers another member under access control (the quick decision leaves it to the full one). */
function memberControlledSql(): string {
  return `(a.dual_current_id IS NOT NULL AND a.dual_current_id <> a.id AND EXISTS (SELECT 1 FROM accounts m WHERE m.id = a.dual_current_id AND m.access_control_rows > 0))`;
}

function gateSetting(key: GateSetting, options: { callerColumns?: boolean }): string {
  return options.callerColumns ? `c.${key}` : settingSql(key, 'r.org_id');
}

/**
 * The one order of a decision's refusals, over SQL expressions for a visible account: the
 * share level, access control (its refusal, or NULL), the help-desk rule, the organisation's
 * reason and ticket settings, and the stored object a use needs.
 */
function refusalSql(
  p: GateSlots,
  t: { level?: string; access: string; helpdesk: string; reasonRequired: string; ticketing: string; locator?: string },
): string {
  return `CASE
    ${t.level ? `WHEN NOT ${t.level} THEN 'LEVEL'` : ''}
    WHEN ${t.access} IS NOT NULL THEN ${t.access}
    WHEN ${t.helpdesk} THEN 'HELPDESK'
    WHEN ${t.reasonRequired} AND btrim(${p.reason}) = '' THEN 'REASON'
    WHEN ${t.ticketing} AND btrim(${p.ticket}) = '' THEN 'TICKETID'
    ${t.locator ? `WHEN ${t.locator} IS NULL THEN 'MISSING'` : ''}
  END`;
}

/**
 * The audit row of the decision, as a data-modifying CTE (it always runs): a grant (when
 * the rule audits grants here) or a refusal, including "not found" for an account the
 * caller may not see (ids in the description only, so no other organisation's ids land
 * in this organisation's columns). Runs in the same statement as the decision, so no
 * secret is released unaudited. `grantsOnly` (after a quick decision) writes the grant
 * and nothing else: the full decision that follows a quick refusal audits that.
 */
export function decisionAuditCte(rule: AccountUseRule, p: GateSlots, description = "''", options: { grantsOnly?: boolean } = {}): string {
  if (options.grantsOnly) return grantAuditCte(rule, p, description);
  const granted = `(v.id IS NOT NULL AND v.refusal IS NULL)`;
  const which = rule.granted ? '' : `WHERE NOT ${granted}`;
  return `logged AS (
  INSERT INTO audit (${AUDIT_COLUMNS})
  SELECT c.org_id, 'Resource',
         CASE WHEN ${granted} THEN '${rule.granted ?? ''}' ELSE '${rule.refused}' END,
         CASE WHEN ${granted} THEN 'Success' ELSE 'Failed' END, c.id, c.username, ${p.ip}, ${p.client},
         v.rid, coalesce(v.rname, ''), v.id, coalesce(v.name, ''), ${p.reason}, ${p.ticket},
         CASE WHEN v.id IS NULL THEN 'refused: NOT_FOUND (resource ' || (${p.rid})::int::text || ', account ' || (${p.aid})::int::text || ')'
              WHEN v.refusal IS NOT NULL THEN 'refused: ' || v.refusal
              ELSE ${memberNamed(description)} END
  FROM caller c LEFT JOIN verdict v ON true
  ${which}
  RETURNING id
)`;
}

/** decisionAuditCte's `grantsOnly` form: the grant's row, when there is one. */
function grantAuditCte(rule: AccountUseRule, p: GateSlots, description: string): string {
  if (!rule.granted) throw new Error(`A ${rule.refused} decision audits no grant`);
  return `logged AS (
  INSERT INTO audit (${AUDIT_COLUMNS})
  SELECT c.org_id, 'Resource', '${rule.granted}', 'Success', c.id, c.username, ${p.ip}, ${p.client},
         v.rid, v.rname, v.id, v.name, ${p.reason}, ${p.ticket}, ${memberNamed(description)}
  FROM caller c JOIN verdict v ON v.refusal IS NULL
  RETURNING id
)`;
}

/** A grant's description, naming the pair member whose password a read released. */
function memberNamed(description: string): string {
  return `CASE WHEN v.member_name IS NULL THEN ${description} ELSE rtrim('Current member of the pair: ' || v.member_name || '. ' || ${description}) END`;
}

const AUDIT_COLUMNS = `org_id, category, operation, outcome, actor_id, actor_name, ip, client,
                     resource_id, resource_name, account_id, account_name, reason, ticket_id, description`;

/** A caller CTE for an already authenticated actor, with its five parameters first. */
export const ACTOR_CALLER = `caller AS (SELECT $1::int AS org_id, $2::int AS id, $3::boolean AS is_super_admin, $4::text AS username, $5::text AS role)`;
/**
 * ACTOR_CALLER with CALLER_GATE_COLUMNS, read from the actor's user and organisation rows
 * (for a decision with `callerColumns`). No row when the user is gone: nothing is granted.
 */
export const ACTOR_CALLER_WITH_COLUMNS = `caller AS (SELECT p.*, ${CALLER_GATE_COLUMNS}
  FROM (SELECT $1::int AS org_id, $2::int AS id, $3::boolean AS is_super_admin, $4::text AS username, $5::text AS role) p
  JOIN users u ON u.id = p.id JOIN organizations o ON o.id = p.org_id AND o.id = u.org_id)`;
/** Slots after ACTOR_CALLER; a decision uses $6–$9, its audit row $10 and $11 too. */
export const ACTOR_SLOTS: GateSlots = { rid: '$6', aid: '$7', reason: '$8', ticket: '$9', ip: '$10', client: '$11' };

/**
 * A caller CTE read from a token ($1 its hash, $2 the roles the use needs), for the hot
 * statements that authenticate as they decide (the password read and change): the user
 * behind the token with CALLER_GATE_COLUMNS, and `fast` when SQL alone admits them (not
 * locked, not expired, not bound to hosts, a role that grants the use). The decision takes
 * `admitted: 'c.fast'`; a caller that is not `fast` is admitted by the Authenticator and
 * asks again. No row for an unknown token.
 */
export const TOKEN_CALLER = `caller AS (
  SELECT w.*, (NOT w.locked AND NOT w.expired AND w.allowed_hosts = '' AND w.role = ANY($2::text[])) AS fast
  FROM (SELECT ${CALLER_COLUMNS}, ${CALLER_GATE_COLUMNS} FROM ${CALLER_FROM} WHERE t.token_hash = $1) w
)`;
/** Slots after TOKEN_CALLER ($1, $2). */
export const TOKEN_SLOTS: GateSlots = { rid: '$3', aid: '$4', ip: '$5', client: '$6', reason: '$7', ticket: '$8' };

/**
 * Where a write's own parameters go in a gate statement: its n-th (from 1) after the
 * caller's and the decision's slots, whichever caller CTE the statement has.
 */
export interface WriteSlots extends GateSlots {
  param(n: number): string;
}

export function writeSlots(slots: GateSlots, last: number): WriteSlots {
  return { ...slots, param: (n) => `$${last + n}` };
}
