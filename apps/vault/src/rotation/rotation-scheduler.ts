import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { APP_CONFIG, AppConfig } from '@app/config';
import { RepeatingTask } from '@app/server';
import { resourceVisibleSql } from '@app/gate';
import { ACCOUNT_ROTATOR, AccountRotator, RotationDeferred } from './account-rotator';
import { RotationEvents } from './rotation-events';
import { RotationNotices } from './rotation-notices';
import { IntervalUnit, nextRun } from './rotation-schedule';

/** Due schedules expanded per transaction, and how long finished runs are kept. */
const SCHEDULE_BATCH = 20;
const KEEP_RUNS = `interval '30 days'`;

interface ClaimedRun {
  id: number;
  group_id: number;
  org_id: number;
  account_id: number;
  attempts: number;
  retries: number;
  retry_interval_minutes: string;
  notify: string[];
  group_name: string;
  account_name: string;
  resource_id: number;
  resource_name: string;
  rotated: boolean;
  held_until: Date | null;
}

/**
 * Scheduled rotation. Every instance ticks; the database decides who does what:
 *  - a due schedule is expanded into one rotation_runs row per account of the group's
 *    resources that have remote reset configured and that whoever set the schedule may
 *    change (modify access, at the due time: a group can hold resources its creator cannot
 *    see), and its next_run advanced, in one
 *    transaction under the schedule row's lock (SKIP LOCKED): each due time once;
 *  - each run is claimed with FOR UPDATE SKIP LOCKED and the lock kept while the account
 *    rotates, so exactly one instance rotates it; an instance that dies releases it at once,
 *    and the next claimer finds it done (accounts.last_rotation_run, written with the new
 *    password) or settles what the connector left pending before rotating.
 * An account under an exclusive check-out waits for its check-in (CheckinFinisher makes its
 * runs due then), and so does a pair while either member is checked out. A resource's administrator account is rotated after the resource's other
 * due accounts: they log in with its password. A failed attempt is retried RETRIES times, RETRYINTERVAL apart; the last
 * failure is audited, notified and kept on the run.
 */
@Injectable()
export class RotationScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Rotation');
  private readonly loop: RepeatingTask;

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly events: RotationEvents,
    private readonly notices: RotationNotices,
    @Inject(ACCOUNT_ROTATOR) private readonly rotator: AccountRotator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.loop = new RepeatingTask(this.logger, 'Rotation tick', () => this.tick(), () => this.config.rotation.tickMs);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** One tick: expand due schedules, then rotate what is due with the configured concurrency. */
  async tick(): Promise<{ expanded: number; rotated: number; failed: number }> {
    let expanded = 0;
    for (let n; (n = await this.expandDue()) > 0 && !this.loop.stopped; ) expanded += n;
    const counts = { rotated: 0, failed: 0 };
    const worker = async () => {
      for (let outcome; !this.loop.stopped && (outcome = await this.runOne()) !== 'none'; ) {
        if (outcome === 'rotated') counts.rotated++;
        if (outcome === 'failed') counts.failed++;
      }
    };
    await Promise.all(Array.from({ length: this.config.rotation.concurrency }, worker));
    await this.dataSource.query(`DELETE FROM rotation_runs WHERE status <> 'due' AND finished_at < now() - ${KEEP_RUNS}`);
    return { expanded, ...counts };
  }

  /** Expands up to SCHEDULE_BATCH due schedules; returns how many. */
  private expandDue(): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const due: { group_id: number; next_run: Date; interval_value: string; interval_unit: IntervalUnit }[] = await m.query(
        `SELECT group_id, next_run, interval_value, interval_unit FROM rotation_schedules
         WHERE enabled AND next_run <= now() ORDER BY next_run LIMIT ${SCHEDULE_BATCH} FOR UPDATE SKIP LOCKED`,
      );
      for (const s of due) {
        await m.query(
          `INSERT INTO rotation_runs (group_id, org_id, account_id, due_at, next_attempt_at)
           SELECT s.group_id, s.org_id, a.id, s.next_run, s.next_run
           FROM rotation_schedules s JOIN users u ON u.id = s.updated_by AND u.org_id = s.org_id
             JOIN resource_group_membership gm ON gm.group_id = s.group_id
             JOIN resources r ON r.id = gm.resource_id AND r.org_id = s.org_id JOIN accounts a ON a.resource_id = r.id
           WHERE s.group_id = $1 AND r.remote_account_id IS NOT NULL
             -- on behalf of whoever set the schedule: only accounts they may change themselves
             AND ${resourceVisibleSql('r', 's.org_id', 'u.id', 'u.is_super_admin', { account: 'a', atLeast: 'modify' })}
             AND NOT EXISTS (SELECT 1 FROM accounts h WHERE h.dual_partner_id = a.id) -- a pair's partner rotates with its head
             -- a run still waiting (check-out, a pair's grace, retries) stands for this due time too: no backlog
             AND NOT EXISTS (SELECT 1 FROM rotation_runs w WHERE w.group_id = s.group_id AND w.account_id = a.id AND w.status = 'due')
           ON CONFLICT DO NOTHING`,
          [s.group_id],
        );
        const next = nextRun({ interval: Number(s.interval_value), unit: s.interval_unit }, new Date(), s.next_run);
        await m.query('UPDATE rotation_schedules SET last_run = next_run, next_run = $2 WHERE group_id = $1', [s.group_id, next]);
      }
      return due.length;
    });
  }

  /** Claims one due run and rotates it, holding its lock meanwhile. */
  private runOne(): Promise<'none' | 'rotated' | 'failed' | 'waiting'> {
    return this.dataSource.transaction(async (m) => {
      const [run]: ClaimedRun[] = await m.query(
        `SELECT rr.id, rr.group_id, rr.org_id, rr.account_id, rr.attempts, s.retries, s.retry_interval_minutes, s.notify,
           g.name AS group_name, a.name AS account_name, r.id AS resource_id, r.name AS resource_name,
           EXISTS (SELECT 1 FROM accounts x WHERE x.last_rotation_run = rr.id) AS rotated,
           (SELECT max(pr.checkout_until) FROM password_requests pr
            WHERE pr.account_id IN (rr.account_id, a.dual_partner_id) AND pr.status IN ('checked_out', 'resetting') AND pr.exclusive) AS held_until
         FROM rotation_runs rr JOIN rotation_schedules s ON s.group_id = rr.group_id JOIN resource_groups g ON g.id = rr.group_id
           JOIN accounts a ON a.id = rr.account_id JOIN resources r ON r.id = a.resource_id
         WHERE rr.status = 'due' AND rr.next_attempt_at <= now()
           -- The resource's administrator goes after the resource's other ready runs: they log in with its password.
           AND NOT (a.id = r.remote_account_id AND EXISTS (
             SELECT 1 FROM rotation_runs o JOIN accounts oa ON oa.id = o.account_id
             WHERE o.status = 'due' AND o.next_attempt_at <= now() AND oa.resource_id = r.id AND o.id <> rr.id))
         ORDER BY rr.next_attempt_at, rr.id LIMIT 1 FOR UPDATE OF rr SKIP LOCKED`,
      );
      if (!run) return 'none';
      if (run.rotated) {
        await finish(m, run.id, 'done', 'Rotated (found done after an interrupted attempt)');
        return 'rotated';
      }
      if (run.held_until) {
        // Not under its holder: CheckinFinisher makes the run due at the check-in.
        await m.query(`UPDATE rotation_runs SET next_attempt_at = greatest($2::timestamptz, now() + interval '1 minute'), message = $3 WHERE id = $1`, [
          run.id,
          run.held_until,
          'Waiting for the check-in of an exclusive check-out',
        ]);
        return 'waiting';
      }
      const startedBy = `rotation schedule of resource group ${run.group_name}`;
      const error = await this.rotator.rotate({ runId: run.id, accountId: run.account_id, startedBy }).then(
        () => undefined,
        (e: Error) => e,
      );
      if (!error) {
        await finish(m, run.id, 'done', 'Rotated');
        return 'rotated';
      }
      if (error instanceof RotationDeferred) {
        await m.query('UPDATE rotation_runs SET next_attempt_at = $2, message = $3 WHERE id = $1', [run.id, error.until, error.message.slice(0, 1000)]);
        return 'waiting';
      }
      await this.failed(m, run, startedBy, error.message);
      return 'failed';
    });
  }

  private async failed(m: EntityManager, run: ClaimedRun, startedBy: string, message: string): Promise<void> {
    const attempts = run.attempts + 1;
    if (attempts <= run.retries) {
      await m.query(
        `UPDATE rotation_runs SET attempts = $2, message = $3, next_attempt_at = now() + make_interval(secs => $4) WHERE id = $1`,
        [run.id, attempts, message.slice(0, 1000), Number(run.retry_interval_minutes) * 60],
      );
      this.logger.warn(`Rotation of account ${run.account_id} failed (attempt ${attempts} of ${run.retries + 1}); will retry: ${message}`);
      return;
    }
    await m.query(`UPDATE rotation_runs SET attempts = $2 WHERE id = $1`, [run.id, attempts]);
    await finish(m, run.id, 'failed', message);
    await m.query(`UPDATE accounts SET rotation_failed_at = now() WHERE id = $1`, [run.account_id]);
    await this.audit.record(
      {
        category: 'Resource',
        operation: AuditOperation.PasswordRotationFailed,
        outcome: 'Failed',
        actor: null,
        orgId: run.org_id,
        resourceId: run.resource_id,
        resourceName: run.resource_name,
        accountId: run.account_id,
        accountName: run.account_name,
        description: `By the ${startedBy}, after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${message}`.slice(0, 1000),
      },
      m,
    );
    const fact = { resource: run.resource_name, account: run.account_name, resourceId: run.resource_id, accountId: run.account_id, outcome: 'failed' as const, trigger: startedBy };
    await this.events.record(m, { ...fact, orgId: run.org_id });
    this.notices.rotationFailed({ ...fact, message, attempts, recipients: run.notify });
  }

}

function finish(m: EntityManager, runId: number, status: 'done' | 'failed', message: string): Promise<unknown> {
  return m.query(`UPDATE rotation_runs SET status = $2, message = $3, finished_at = now() WHERE id = $1`, [runId, status, message.slice(0, 1000)]);
}
