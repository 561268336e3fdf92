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

/** Sources (address and user) counted apart at once; more share one row. */
export const SOURCE_LIMIT = 8;
/** The advisory lock that serialises the ledger's writes (an arbitrary constant of this table's). */
const LEDGER_LOCK = 7_310_452_611;
/** The source of the failures past SOURCE_LIMIT. */
export const OVERFLOW_SOURCE = 'other sources';

/** The audit row of a source's failures, from a `failed_auth_sources` row `f` just updated. */
const AUDIT_FROM_SOURCE = `INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, target, description)
  SELECT f.org_id, 'User', '${AuditOperation.AuthenticationFailed}', 'Failed', nullif(f.user_id, 0), f.username, f.source, f.username,
    CASE WHEN f.written = 1 THEN f.last_description
      ELSE f.written || ' failed authentications from ' || f.source || ' since '
        || to_char(f.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '; the last: ' || f.last_description END
  FROM f WHERE f.written > 0 RETURNING id`;

/**
 * Counts $7 failures of one source (address and user); when the source had no row within
 * the window, a row is written at once: a new source's for its first failure (the others
 * held), else one with the count of the failures held since the last row. Past $8 sources
 * at once, a new source's failures are counted under OVERFLOW_SOURCE (no user): however many
 * addresses a flood comes from, the ledger and the audit stay bounded and the counts add up.
 */
const RECORD = `WITH pick AS (
  SELECT CASE WHEN known.found OR (SELECT count(*) FROM failed_auth_sources) < $8 THEN false ELSE true END AS overflow
  FROM (SELECT EXISTS (SELECT 1 FROM failed_auth_sources WHERE source = $1 AND user_id = $2) AS found) known
), f AS (
  INSERT INTO failed_auth_sources AS s (source, user_id, org_id, username, audited_at, since, held, written, last_description)
  SELECT CASE WHEN p.overflow THEN '${OVERFLOW_SOURCE}' ELSE $1 END, CASE WHEN p.overflow THEN 0 ELSE $2 END,
    CASE WHEN p.overflow THEN NULL ELSE $3::int END, CASE WHEN p.overflow THEN '' ELSE $4 END, now(), now(), $7 - 1, 1,
    CASE WHEN p.overflow THEN 'from ' || $1 || ': ' || $5 ELSE $5 END
  FROM pick p
  ON CONFLICT (source, user_id) DO UPDATE SET
    since = CASE WHEN s.audited_at <= now() - $6::interval THEN s.audited_at ELSE s.since END,
    written = CASE WHEN s.audited_at <= now() - $6::interval THEN s.held + $7 ELSE 0 END,
    held = CASE WHEN s.audited_at <= now() - $6::interval THEN 0 ELSE s.held + $7 END,
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
const RETRY_MS = 1_000;

/** Failures of one source waiting for their statement: the latest stands for them all. */
interface Batch {
  failure: FailedAuth;
  count: number;
  written: Promise<void>;
}

/**
 * The audit of failed authentication, aggregated per source so that a flood cannot flood
 * the audit: the first failure of a source is written at once, later ones are counted and
 * written as one row a minute with their count (exact: the counts add up). The counts live
 * in the database, so every instance on it adds to the same series. Within an instance, the
 * failures of a source arriving while its statement runs wait and go in the next one, so a
 * flood costs a few statements, not one per failure.
 */
@Injectable()
export class FailedAuthLedger implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Auth');
  private timer?: NodeJS.Timeout;
  /** The timer's flush under way, if any. */
  private flushing?: Promise<unknown>;
  /** Per source: the failures waiting for a statement, and the statement running. */
  private readonly waiting = new Map<string, Batch>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.flushing ??= this.flush()
        .catch((e: Error) => this.logger.error(`Could not audit held failed authentications: ${e.message}`))
        .finally(() => (this.flushing = undefined));
    }, FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Lets the statements under way finish before the pool closes: a count being written at
   * shutdown would otherwise fail on a closed connection, and its retry die with the process.
   */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled([this.flushing, ...this.running.values()]);
  }

  /** Counts the failure; resolves once it is in the database. */
  record(failure: FailedAuth): Promise<void> {
    const key = `${sourceOf(failure.ip)}\u0000${failure.user?.id ?? 0}`;
    const waiting = this.waiting.get(key);
    if (waiting) {
      waiting.count += 1;
      waiting.failure = failure;
      return waiting.written;
    }
    const batch: Batch = { failure, count: 1, written: Promise.resolve() };
    this.waiting.set(key, batch);
    batch.written = (this.running.get(key) ?? Promise.resolve()).then(() => this.write(key, batch));
    this.running.set(key, batch.written);
    void batch.written.finally(() => this.running.get(key) === batch.written && this.running.delete(key));
    return batch.written;
  }

  private async write(key: string, batch: Batch): Promise<void> {
    this.waiting.delete(key);
    const { ip, user, description } = batch.failure;
    try {
      // One writer at a time across instances: the count of sources must see every row committed before it.
      await this.dataSource.transaction(async (m) => {
        await m.query('SELECT pg_advisory_xact_lock($1)', [LEDGER_LOCK]);
        await m.query(RECORD, [sourceOf(ip), user?.id ?? 0, user?.orgId ?? null, user?.username ?? '', description.slice(0, 1500), WINDOW, batch.count, SOURCE_LIMIT]);
      });
    } catch (error) {
      // Counted later rather than lost: the count joins the source's next statement.
      this.logger.error(`Could not count ${batch.count} failed authentication(s) from ${ip}: ${(error as Error).message}`);
      setTimeout(() => {
        for (let i = 0; i < batch.count; i++) void this.record(batch.failure).catch(() => undefined);
      }, RETRY_MS).unref();
    }
  }

  /** Writes the rows that are due; `window` shorter than a minute only in tests. Returns how many. */
  async flush(window = WINDOW): Promise<number> {
    const result: unknown = await this.dataSource.query(FLUSH, [window]);
    return Array.isArray(result) ? result.length : 0;
  }
}

/** An IPv6 client is one /64 (one host holds a whole /64 to choose from); IPv4 is the address. */
export function sourceOf(ip: string): string {
  if (!ip.includes(':') || /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip)) return ip.replace(/^::ffff:/i, '');
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => (parseInt(g, 16) || 0).toString(16)).join(':')}::/64`;
}
