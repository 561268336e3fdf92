import { EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError, ErrorCode } from '@app/http';

/**
 * The one definition of where an account's stored password goes, over resource alias `r`
 * and account alias `a`: the resource type (the connector), the host (DNS name, else the
 * resource's name), port, TLS mode, trusted CA, database, user DN template, the account's
 * name (the principal) and the administrator account that acts on it. Readable, because an
 * audit row names it. Every check of a destination (EDIT RESOURCE, the remote-reset
 * configuration, the binding and the server's uses) compares this text, nothing else.
 */
export function destinationSql(r = 'r', a = 'a'): string {
  return `concat_ws(' ', ${r}.type || ' at ' || ${hostSql(r)},
    'port ' || coalesce(${r}.remote_port::text, 'default'), 'TLS ' || coalesce(${r}.remote_tls, 'default'),
    'CA ' || coalesce(left(md5(${r}.remote_ca_cert), 12), 'none'), 'database ' || coalesce(${r}.remote_database, 'default'),
    'user DN ' || coalesce(${r}.remote_user_dn, 'none'), 'as ' || ${a}.name,
    'by administrator ' || coalesce(${r}.remote_account_id::text, 'none'))`;
}

/** The host a resource's connectors reach: its DNS name, else its name (untrimmed, as the connectors use it). */
export function hostSql(r = 'r'): string {
  return `coalesce(nullif(${r}.dns_name, ''), ${r}.name)`;
}

/** The destination as it would be for every account of a resource: `a.name` stands for each account. */
export async function resourceDestinations(m: EntityManager, resourceId: number): Promise<Map<number, string>> {
  const rows: { id: number; destination: string }[] = await m.query(
    `SELECT a.id, ${destinationSql()} AS destination FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.id = $1`,
    [resourceId],
  );
  return new Map(rows.map((row) => [row.id, row.destination]));
}

/**
 * Binds the accounts of a managed resource (one with an administrator account) to their
 * current destination, after the decision that allowed it; each binding that moves is
 * audited as `Destination Approved`, naming the destination. `accountIds` limits it to
 * those accounts (a new or renamed account); a resource without an administrator binds
 * nothing: no password of it goes anywhere.
 */
export async function bindDestinations(m: EntityManager, audit: AuditWriter, actor: Actor | null, resourceId: number, why: string, accountIds?: number[]): Promise<void> {
  const [rows]: [{ id: number; name: string; resource_name: string; org_id: number; destination: string }[], number] = await m.query(
    `UPDATE accounts a SET bound_destination = ${destinationSql()}
     FROM resources r WHERE r.id = a.resource_id AND r.id = $1 AND r.remote_account_id IS NOT NULL
       AND ($2::int[] IS NULL OR a.id = ANY($2))
       AND a.bound_destination IS DISTINCT FROM ${destinationSql()}
     RETURNING a.id, a.name, r.name AS resource_name, r.org_id, a.bound_destination AS destination`,
    [resourceId, accountIds ?? null],
  );
  for (const row of rows) {
    await audit.record(
      {
        category: 'Resource',
        operation: AuditOperation.DestinationApproved,
        actor,
        orgId: row.org_id,
        resourceId,
        resourceName: row.resource_name,
        accountId: row.id,
        accountName: row.name,
        description: `Its password may be sent to ${row.destination}; ${why}`.slice(0, 2000),
      },
      m,
    );
  }
}

/** What a use by the server (or on a caller's behalf) finds: the account's binding against its destination now. */
interface BindingRow {
  id: number;
  name: string;
  resource_id: number;
  resource_name: string;
  org_id: number;
  bound: string | null;
  current: string;
}

export const DESTINATION_CHANGED = 'DESTINATION CHANGED';

/**
 * Before any connector sends an account's stored password: the destination must be the one
 * its password was bound to by a decision. If not, nothing is sent; the account shows
 * `PASSWORD SYNC STATUS: DESTINATION CHANGED` and one audit row names both destinations.
 * `usedBy`: the caller, or null for the server's own use (named by `startedBy`).
 */
export async function requireBoundDestination(
  runner: { query(sql: string, params?: unknown[]): Promise<any> },
  audit: AuditWriter,
  accountId: number,
  usedBy: Actor | null,
  startedBy: string,
  /** False inside a caller's transaction that may hold the account's row: refuse without writing. */
  record = true,
): Promise<void> {
  const [row]: BindingRow[] = await runner.query(
    `SELECT a.id, a.name, r.id AS resource_id, r.name AS resource_name, r.org_id, a.bound_destination AS bound, ${destinationSql()} AS current
     FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE a.id = $1`,
    [accountId],
  );
  if (!row || row.bound === row.current) return;
  if (!record) throw destinationChanged(row.name);
  await runner.query(`UPDATE accounts SET password_status = $2, verify_claimed_at = NULL, last_verified_at = now() WHERE id = $1`, [accountId, DESTINATION_CHANGED]);
  await audit.record({
    category: 'Resource',
    operation: AuditOperation.DestinationChanged,
    outcome: 'Failed',
    actor: usedBy,
    orgId: row.org_id,
    resourceId: row.resource_id,
    resourceName: row.resource_name,
    accountId: row.id,
    accountName: row.name,
    description: `Nothing sent (${startedBy}): its password is bound to ${row.bound ?? 'no destination'}, the resource now points to ${row.current}`.slice(0, 2000),
  });
  throw destinationChanged(row.name);
}

export function destinationChanged(accountName: string): AppError {
  return new AppError(
    ErrorCode.RemoteFailure,
    `The destination of ${accountName} changed without a decision on its password; nothing was sent. Configure remote password reset again to approve the new destination`,
  );
}
