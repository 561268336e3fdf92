import { AuditOperation, SYSTEM_ACTOR_NAME } from '@app/audit';
import { AppError, ErrorCode } from '@app/http';
import type { Locator } from './locator';
import { hostSql } from './destination-binding';

/**
 * A use of a resource's administrator credential (resources.remote_account_id): the account
 * a remote operation logs in with to act on the resource's host on someone's behalf (remote
 * password change, reset after check-in, a connector's rotation).
 */
export interface AdministratorUse {
  resourceId: number;
  /** What the login is for, in the `Password Used` row (e.g. "Remote change of alice's password"). */
  description: string;
  reason?: string;
  ticketId?: string;
  /**
   * For the system actor (actor null): what started the operation (e.g. "check-in of request
   * 12 by alice", "scheduled rotation"). Required then: the audit row names it.
   */
  startedBy?: string;
}

/** Where a granted administrator credential may be sent: read in the deciding statement. */
export interface AdministratorDestination {
  resourceId: number;
  resourceName: string;
  orgId: number;
  /** The resource type (which connector applies). */
  type: string;
  /** The DNS name, or the resource's name when it has none. */
  host: string;
  /** The configured port; null means the connector's default. */
  port: number | null;
}

/** A granted administrator credential, opened, with the destination it was decided for. */
export interface AdministratorCredential {
  account: { id: number; name: string };
  password: string;
  destination: AdministratorDestination;
}


/** The answer when the resource names no administrator account. */
export function notConfigured(resourceName: string): AppError {
  return new AppError(ErrorCode.Unavailable, `No administrator account is configured for resource ${resourceName}`);
}

/**
 * The user's decision needs the account to still be the resource's administrator in the
 * deciding statement's snapshot; it is refused as MISSING otherwise (configuration changed
 * meanwhile), after every other refusal.
 */
export function administratorLocator(resourceName: string): Locator {
  return { key: 'administrator', sql: 'CASE WHEN r.remote_account_id = a.id THEN a.id END', params: [], missing: notConfigured(resourceName).message };
}

/**
 * The destination columns a decision about the administrator selects, over resource alias
 * `rr`; DESTINATION_TEXT is the same destination for an audit description.
 */
export const DESTINATION_COLUMNS = `rr.type AS dest_type, ${hostSql('rr')} AS dest_host, rr.remote_port AS dest_port`;

export const DESTINATION_TEXT = `${hostSql('rr')} || coalesce(':' || rr.remote_port::text, '') || ' (' || rr.type || ')'`;

export interface DestinationRow {
  rid: number;
  rname: string;
  org_id: number;
  dest_type: string;
  dest_host: string;
  dest_port: number | null;
}

export function destinationOf(row: DestinationRow): AdministratorDestination {
  return { resourceId: row.rid, resourceName: row.rname, orgId: row.org_id, type: row.dest_type, host: row.dest_host, port: row.dest_port };
}

/**
 * The system actor's use, decided and audited in one statement: the resource's current
 * administrator account, and a `Password Used` row naming what started it ($2). No share,
 * access control or help-desk test applies: no user acts, and what started it (a check-in, a
 * schedule) was decided by its own path; where the credential goes was decided when the
 * destination last changed (see the 'redirect' use).
 */
export const SYSTEM_USE_SQL = `WITH target AS (
    SELECT a.id, a.name, a.password, rr.id AS rid, rr.name AS rname, rr.org_id, ${DESTINATION_COLUMNS}, ${DESTINATION_TEXT} AS dest_text
    FROM resources rr JOIN accounts a ON a.id = rr.remote_account_id AND a.resource_id = rr.id
    WHERE rr.id = $1
  ), logged AS (
    INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, client, resource_id, resource_name, account_id, account_name, description)
    SELECT t.org_id, 'Resource', '${AuditOperation.PasswordUsed}', 'Success', NULL, '${SYSTEM_ACTOR_NAME}', '', '', t.rid, t.rname, t.id, t.name,
           left($2::text || '; to ' || t.dest_text, 2000)
    FROM target t RETURNING id
  )
  SELECT t.*, (SELECT count(*) FROM logged)::int AS logged FROM target t`;

/** The system actor's audit description: the use, its destination, and what started it. */
export function systemDescription(use: AdministratorUse): string {
  if (!use.startedBy?.trim()) throw new Error('A use of an administrator credential by the server names what started it');
  return `${use.description}; started by ${use.startedBy}`.slice(0, 2000);
}
