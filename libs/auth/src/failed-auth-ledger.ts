import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditOperation } from '@app/audit';

/** One failed authentication: where from, which user (if the token named one), and why. */
export interface FailedAuth {
  ip: string;
  user?: { id: number; orgId: number; username: string };
  /** `METHOD /path: message`, the row's description when it stands alone. */
  description: string;
}

/** The audit row of a source's failures, from a `failed_auth_sources` row `f` just updated. */
const AUDIT_FROM_SOURCE = `INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, target, description)
  SELECT f.org_id, 'User', '${AuditOperation.AuthenticationFailed}', 'Failed', nullif(f.user_id, 0), f.username, f.source, f.username,
    CASE WHEN f.written = 1 THEN f.last_description
      ELSE f.written || ' failed authentications from ' || f.source || ' since '
        || to_char(f.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '; the last: ' || f.last_description END
  FROM f WHERE f.written > 0 RETURNING id`;

/**
 * Counts the failure; when its source (address and user) had no row within the window, the
 * row is written at once, with the count of the failures held since the last one.
 */
const RECORD = `WITH f AS (
  INSERT INTO failed_auth_sources AS s (source, user_id, org_id, username, audited_at, since, held, written, last_description)
  VALUES ($1, $2, $3, $4, now(), now(), 0, 1, $5)
  ON CONFLICT (source, user_id) DO UPDATE SET
    since = CASE WHEN s.audited_at <= now() - $6::interval THEN s.audited_at ELSE s.since END,
    written = CASE WHEN s.audited_at <= now() - $6::interval THEN s.held + 1 ELSE 0 END,
    held = CASE WHEN s.audited_at <= now() - $6::interval THEN 0 ELSE s.held + 1 END,
    audited_at = CASE WHEN s.audited_at <= now() - $6::interval THEN now() ELSE s.audited_at END,
    org_id = EXCLUDED.org_id, username = EXCLUDED.username, last_description = EXCLUDED.last_description
  RETURNING *
) ${AUDIT_FROM_SOURCE}`;

/**
 * Writes the held failures of every source whose last row is a window old, one row each; a
 * source being written by another instance is skipped (it writes them), and sources with
 * nothing held and no failure in the window are forgotten.
 */
const FLUSH = `WITH due AS (
  SELECT source, user_id FROM failed_auth_sources WHERE held > 0 AND audited_at <= now() - $1::interval FOR UPDATE SKIP LOCKED
), f AS (
  UPDATE failed_auth_sources s SET since = s.audited_at, written = s.held, held = 0, audited_at = now()
  FROM due WHERE s.source = due.source AND s.user_id = due.user_id
  RETURNING s.*
), gone AS (
  DELETE FROM failed_auth_sources WHERE held = 0 AND audited_at <= now() - $1::interval
) ${AUDIT_FROM_SOURCE}`;

const WINDOW = '1 minute';
const FLUSH_INTERVAL_MS = 10_000;

/**
 * The audit of failed authentication, aggregated per source so that a flood cannot flood
 * the audit: the first failure of a source is written at once, later ones are counted and
 * written as one row a minute with their count (exact: the counts add up). The counts live
 * in the database, so every instance on it adds to the same series.
 */
@Injectable()
export class FailedAuthLedger implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Auth');
  private timer?: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush().catch((e: Error) => this.logger.error(`Could not audit held failed authentications: ${e.message}`)), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async record(failure: FailedAuth): Promise<void> {
    const { ip, user, description } = failure;
    await this.dataSource.query(RECORD, [ip, user?.id ?? 0, user?.orgId ?? null, user?.username ?? '', description.slice(0, 1500), WINDOW]);
  }

  /** Writes the rows that are due; `window` shorter than a minute only in tests. Returns how many. */
  async flush(window = WINDOW): Promise<number> {
    const result: unknown = await this.dataSource.query(FLUSH, [window]);
    return Array.isArray(result) ? result.length : 0;
  }
}
