import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { grantedOrgSql, roleHas } from '@app/auth';
import { resourceVisibleSql, runningCheckoutSql, visibilityParams } from '@app/gate';
import { AppError } from '@app/http';
import { effectiveAccessControl } from '../password-requests/access-sql';

export interface AccountState {
  id: number;
  controlled: boolean;
  myStatus: 'waiting' | 'approved' | 'checked_out' | null;
  myUntil: Date | null;
  /** The start of the window of a request for later, while it is ahead. */
  myFrom: Date | null;
  holder: string | null;
  holderUntil: Date | null;
  passwordStatus: string | null;
  lastVerifiedAt: Date | null;
  /** When a schedule last rotated it. */
  lastRotatedAt: Date | null;
}

export interface RotationRow {
  group: string;
  enabled: boolean;
  every: string;
  nextRun: Date | null;
  lastRun: Date | null;
  done: number;
  failed: number;
  lastFailure: string | null;
}

export interface MyRequest {
  accountId: number;
  accountName: string;
  resourceId: number;
  resourceName: string;
  status: string;
  until: Date | null;
  /** The start of the window of a request for later, while it is ahead. */
  from: Date | null;
}

/**
 * What the console shows beside the API's own answers: per account the state a person needs
 * (under access control, their request, who holds a check-out and until when, verification),
 * their open requests and check-outs, and the audit chain's head. Reads only, scoped by the
 * gate's visibility SQL, the one definition of "may see".
 */
@Injectable()
export class ConsoleReads {
  constructor(private readonly dataSource: DataSource) {}

  async accountStates(actor: Actor, resourceId: number): Promise<Map<number, AccountState>> {
    const rows = await this.dataSource.query(
      `SELECT a.id, (ac.id IS NOT NULL) AS controlled, mine.status AS my_status,
         CASE mine.status WHEN 'checked_out' THEN mine.checkout_until ELSE mine.expires_at END AS my_until,
         CASE WHEN mine.window_start > now() THEN mine.window_start END AS my_from,
         holder.username AS holder, holder.checkout_until AS holder_until, a.password_status, a.last_verified_at,
         (SELECT rr.finished_at FROM rotation_runs rr WHERE rr.id = a.last_rotation_run) AS last_rotated_at
       FROM accounts a JOIN resources r ON r.id = a.resource_id LEFT JOIN ${effectiveAccessControl('a')} ON true
       LEFT JOIN LATERAL (SELECT pr.status, pr.expires_at, pr.checkout_until, pr.window_start FROM password_requests pr
         WHERE pr.account_id = a.id AND pr.requester_id = $2 AND pr.status IN ('waiting', 'approved', 'checked_out') ORDER BY pr.id DESC LIMIT 1) mine ON true
       LEFT JOIN LATERAL (SELECT u.username, pr.checkout_until FROM password_requests pr JOIN users u ON u.id = pr.requester_id
         WHERE pr.account_id = a.id AND ${runningCheckoutSql('pr')} ORDER BY pr.id DESC LIMIT 1) holder ON true
       WHERE r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}`,
      [...visibilityParams(actor), resourceId],
    );
    return new Map(
      rows.map((r: Record<string, never>) => [
        r.id,
        { id: r.id, controlled: r.controlled, myStatus: r.my_status, myUntil: r.my_until, myFrom: r.my_from, holder: r.holder, holderUntil: r.holder_until, passwordStatus: r.password_status, lastVerifiedAt: r.last_verified_at, lastRotatedAt: r.last_rotated_at },
      ]),
    );
  }

  /** The resource and account names of an account the actor sees (for a page heading). */
  async names(actor: Actor, accountId: number): Promise<{ resource: string; account: string }> {
    const [row] = await this.dataSource.query(
      `SELECT r.name AS resource, a.name AS account FROM accounts a JOIN resources r ON r.id = a.resource_id
       WHERE a.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}`,
      [...visibilityParams(actor), accountId],
    );
    if (!row) throw AppError.notFound('No such account found');
    return row;
  }

  /**
   * The organisation's rotation schedules (GET PASSWORD ROTATION's facts for every group), with
   * the outcome of each group's last due time: accounts rotated, failed, and the last failure.
   */
  rotations(actor: Actor): Promise<RotationRow[]> {
    return this.dataSource.query(
      `SELECT g.name AS "group", s.enabled, trim_scale(s.interval_value)::text || ' ' || s.interval_unit AS every,
         CASE WHEN s.enabled THEN s.next_run END AS "nextRun", s.last_run AS "lastRun",
         coalesce(last.done, 0)::int AS done, coalesce(last.failed, 0)::int AS failed, last.failure AS "lastFailure"
       FROM rotation_schedules s JOIN resource_groups g ON g.id = s.group_id
       LEFT JOIN LATERAL (
         SELECT count(*) FILTER (WHERE r.status = 'done') AS done, count(*) FILTER (WHERE r.status = 'failed') AS failed,
           (array_agg(r.message ORDER BY r.finished_at DESC) FILTER (WHERE r.status = 'failed'))[1] AS failure
         FROM rotation_runs r WHERE r.group_id = g.id AND r.due_at = (SELECT max(due_at) FROM rotation_runs x WHERE x.group_id = g.id)) last ON true
       WHERE s.org_id = $1 ORDER BY lower(g.name)`,
      [actor.orgId],
    );
  }

  /** The actor's own requests that are still open: waiting, approved, checked out. */
  myRequests(actor: Actor): Promise<MyRequest[]> {
    return this.dataSource.query(
      `SELECT a.id AS "accountId", a.name AS "accountName", r.id AS "resourceId", r.name AS "resourceName", pr.status,
         CASE pr.status WHEN 'checked_out' THEN pr.checkout_until ELSE pr.expires_at END AS until,
         CASE WHEN pr.window_start > now() THEN pr.window_start END AS "from"
       FROM password_requests pr JOIN accounts a ON a.id = pr.account_id JOIN resources r ON r.id = a.resource_id
       WHERE pr.requester_id = $1 AND r.org_id = $2 AND pr.status IN ('waiting', 'approved', 'checked_out')
         AND (pr.status <> 'checked_out' OR pr.checkout_until > now()) AND (pr.status = 'checked_out' OR pr.expires_at > now())
       ORDER BY pr.id DESC`,
      [actor.id, actor.orgId],
    );
  }

  /** The sealed head of the audit chain and how much waits to be sealed. */
  async chainStatus(): Promise<{ sealedRows: string; lastId: string; unsealed: number; sealedAt: Date | null }> {
    const [row] = await this.dataSource.query(
      `SELECT c.sealed_rows::text AS "sealedRows", c.last_id::text AS "lastId", c.updated_at AS "sealedAt",
         (SELECT count(*)::int FROM audit WHERE id > c.last_id) AS unsealed FROM audit_chain c WHERE c.id = 1`,
    );
    return row ?? { sealedRows: '0', lastId: '0', unsealed: 0, sealedAt: null };
  }

  /**
   * The organisations the actor may act in, by the API's orgName rules: their own, and for a
   * user of the provider organisation every one (super administrator) or those granted.
   */
  async organisations(actor: Actor): Promise<string[]> {
    const home = actor.homeOrgId ?? actor.orgId;
    const rows = await this.dataSource.query(
      `SELECT o.name FROM organizations o
       WHERE o.id = $1 OR ($1 = (SELECT min(id) FROM organizations) AND ($2 OR ${grantedOrgSql('o.id', '$3')}))
       ORDER BY o.id = $1 DESC, lower(o.name)`,
      [home, actor.isSuperAdmin && actor.homeOrgId === undefined ? true : await this.isSuperAdminAtHome(actor), actor.id],
    );
    return rows.map((r: { name: string }) => r.name);
  }

  private async isSuperAdminAtHome(actor: Actor): Promise<boolean> {
    const [row] = await this.dataSource.query('SELECT is_super_admin FROM users WHERE id = $1', [actor.id]);
    return row?.is_super_admin === true;
  }

  /** The organisation's users, for the administrators' page. */
  users(actor: Actor): Promise<{ username: string; role: string; locked: boolean; api: boolean }[]> {
    return this.dataSource.query('SELECT username, role, locked, is_api_user AS api FROM users WHERE org_id = $1 ORDER BY username_key LIMIT 1000', [actor.orgId]);
  }

  /** A share's grantee named as the console's form names it: a user or user group of the organisation. */
  async granteeId(actor: Actor, kind: 'user' | 'group', name: string): Promise<string> {
    const [row] = await this.dataSource.query(
      kind === 'user' ? 'SELECT id FROM users WHERE org_id = $1 AND username_key = lower($2)' : 'SELECT id FROM user_groups WHERE org_id = $1 AND lower(name) = lower($2)',
      [actor.orgId, name.trim()],
    );
    if (!row) throw AppError.notFound(`No ${kind === 'user' ? 'user' : 'user group'} named ${name.trim().slice(0, 100)}`);
    return String(row.id);
  }

  assertPermission(actor: Actor, permission: string): void {
    if (!roleHas(actor.role, permission)) throw AppError.forbidden(`Your role (${actor.role}) does not allow this page`);
  }
}
