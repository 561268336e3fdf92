import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { writeBackup } from '@app/backup';
import { APP_CONFIG, AppConfig } from '@app/config';
import { MetricsService } from '@app/observability';
import { ExpiryChannels } from '@app/pki/expiry-notices';
import { RepeatingTask } from '@app/server';

// One instance at a time: the run holds this session lock for as long as it writes.
const BACKUP_LOCK = 727265660;
const FILE = /^credvault-\d{8}T\d{6}Z\.backup$/;
// A failed run is tried again after this long (or the interval, if shorter), not every tick.
const RETRY_AFTER_SECONDS = 3600;

/**
 * Scheduled backups (BACKUP_DIR, BACKUP_INTERVAL_SECONDS, BACKUP_KEEP): every vault instance
 * ticks; the one that takes the advisory lock and finds the last successful run older than the
 * interval writes `credvault-<UTC time>.backup` to BACKUP_DIR (the same file the admin command
 * `backup` writes), keeps the newest BACKUP_KEEP, records the run in backup_runs, audits it and,
 * on failure, mails the super administrators by the notice channels (SMTP_*, the webhook).
 */
@Injectable()
export class BackupScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Backup');
  private readonly loop: RepeatingTask;

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly channels: ExpiryChannels,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const tick = Math.min(60, this.config.backup.intervalSeconds) * 1000;
    this.loop = new RepeatingTask(this.logger, 'Scheduled backup', () => this.tick(), () => tick);
  }

  onApplicationBootstrap(): void {
    this.metrics.gauge('credvault_backup_runs', 'Scheduled backup runs by outcome (all instances)', ['outcome'], async () => {
      const rows: { outcome: string; n: number }[] = await this.dataSource.query(`SELECT outcome, count(*)::int AS n FROM backup_runs GROUP BY 1`);
      return ['success', 'failed'].map((outcome) => [{ outcome }, rows.find((r) => r.outcome === outcome)?.n ?? 0] as [Record<string, string>, number]);
    });
    this.metrics.gauge('credvault_backup_last_success_timestamp_seconds', 'When the last successful scheduled backup started (0: never)', [], async () => {
      const [row] = await this.dataSource.query(`SELECT coalesce(extract(epoch FROM max(started_at)), 0)::float8 AS t FROM backup_runs WHERE outcome = 'success'`);
      return [[{}, row.t as number]];
    });
    if (this.config.backup.dir) this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** One tick; returns the file written, or undefined when another instance holds the lock or none is due. */
  async tick(): Promise<string | undefined> {
    const dir = this.config.backup.dir;
    if (!dir) return undefined;
    const runner = this.dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    let locked = false;
    try {
      locked = (await client.query('SELECT pg_try_advisory_lock($1) AS ok', [BACKUP_LOCK])).rows[0].ok;
      if (!locked || !(await this.due(client))) return undefined;
      return await this.run(client, dir);
    } finally {
      if (locked) await client.query('SELECT pg_advisory_unlock($1)', [BACKUP_LOCK]).catch(() => undefined);
      await runner.release();
    }
  }

  private async due(client: PoolClient): Promise<boolean> {
    const interval = this.config.backup.intervalSeconds;
    const { rows: [last] } = await client.query(
      `SELECT extract(epoch FROM now() - max(started_at) FILTER (WHERE outcome = 'success'))::float8 AS since_success,
              extract(epoch FROM now() - max(started_at) FILTER (WHERE outcome = 'failed'))::float8 AS since_failure
       FROM backup_runs`,
    );
    if (last.since_success !== null && last.since_success < interval) return false;
    return last.since_failure === null || last.since_failure >= Math.min(interval, RETRY_AFTER_SECONDS);
  }

  private async run(client: PoolClient, dir: string): Promise<string> {
    const file = join(dir, `credvault-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}.backup`);
    const { rows: [run] } = await client.query('INSERT INTO backup_runs (file) VALUES ($1) RETURNING id', [file]);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // The pool's statement time-out is for requests; a backup of a large audit trail takes longer.
      await client.query('SET statement_timeout = 0');
      const summary = await writeBackup(client, file).finally(() => client.query('RESET statement_timeout'));
      await client.query(`UPDATE backup_runs SET outcome = 'success', finished_at = now(), bytes = $2, sha256 = $3 WHERE id = $1`, [run.id, summary.bytes, summary.sha256]);
      const removed = this.prune(dir);
      const rows = Object.values(summary.rows).reduce((a, b) => a + b, 0);
      await this.audit.record({
        category: 'User',
        operation: AuditOperation.BackupCreated,
        actor: null,
        target: file,
        description: `${rows} rows, schema ${summary.header.schema}, sha256 ${summary.sha256} (schedule${removed ? `; ${removed} older backup(s) removed` : ''})`,
      });
      this.logger.log(`Backup written to ${file} (${rows} rows)`);
      return file;
    } catch (error) {
      const message = (error as Error).message;
      await client.query(`UPDATE backup_runs SET outcome = 'failed', finished_at = now(), error = $2 WHERE id = $1`, [run.id, message.slice(0, 2000)]);
      await this.audit.record({ category: 'User', operation: AuditOperation.BackupFailed, outcome: 'Failed', actor: null, target: file, description: `${message} (schedule)` });
      this.logger.error(`Scheduled backup to ${file} failed: ${message}`);
      await this.notify(file, message);
      throw error;
    }
  }

  /** Keeps the newest BACKUP_KEEP scheduled backups of the folder; returns how many it removed. */
  private prune(dir: string): number {
    const files = readdirSync(dir).filter((f) => FILE.test(f)).sort().reverse();
    for (const old of files.slice(this.config.backup.keep)) rmSync(join(dir, old), { force: true });
    return Math.max(0, files.length - this.config.backup.keep);
  }

  private async notify(file: string, message: string): Promise<void> {
    const admins: { email: string }[] = await this.dataSource.query(`SELECT DISTINCT email FROM users WHERE is_super_admin AND NOT locked AND email <> '' ORDER BY email`);
    const text = [`The scheduled backup to ${file} failed:`, '', message, '', 'It is tried again within the hour. The last successful backup is the newest file in the backup folder.'].join('\n');
    await this.channels
      .deliver({ subject: 'Scheduled backup failed', text, recipients: admins.map((a) => a.email), webhook: { event: 'backup.failed', file, message } })
      .catch((error: Error) => this.logger.warn(`Backup failure notice not sent: ${error.message}`));
  }
}
