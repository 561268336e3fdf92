import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { APP_CONFIG, AppConfig } from '@app/config';
import { ExpiryChannels } from './expiry-channels';
import { ExpiryFacts } from './expiry-message';

/** Notices sent per tick, so one tick never holds a connection for long. */
const BATCH = 20;
/** After this many failed attempts a notice is given up (and the failure audited). */
const MAX_ATTEMPTS = 12;
const MAX_BACKOFF_MINUTES = 60;
const FIRST_TICK_MS = 10_000;

interface ClaimedNotice {
  id: number;
  threshold_days: number;
  not_after: Date;
  attempts: number;
  certificate_id: number;
  org_id: number;
  common_name: string;
  serial_number: string;
  issuer: string;
  notification_email: string;
  current_not_after: Date;
  revoked_at: Date | null;
}

export interface TickCounts {
  queued: number;
  sent: number;
  failed: number;
  cancelled: number;
}

/**
 * Expiry notices. Each tick, every instance (1) queues a notice for each certificate with
 * an Expiry Notification Email that has crossed a threshold (only the smallest one it
 * crossed); the unique key (certificate, threshold, expiry) makes that idempotent; then
 * (2) claims due notices one at a time with FOR UPDATE SKIP LOCKED and sends each inside
 * the transaction that marks it sent and writes the audit row. So a notice is sent by
 * exactly one instance; a failure is retried with backoff, and the queue, kept in the
 * database, survives restarts. (An instance that dies after the SMTP server accepted the
 * mail but before the commit sends it again: SMTP offers no exactly-once hand-over.)
 */
@Injectable()
export class ExpiryNotifier implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ExpiryNotifier');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: ExpiryChannels,
    private readonly audit: AuditWriter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.channels.enabled) {
      this.logger.debug('Certificate expiry notices are off (set SMTP_HOST or EXPIRY_WEBHOOK_URL)');
      return;
    }
    // The first round soon after start, so a restart does not wait a whole interval.
    this.schedule(Math.min(this.config.expiry.intervalMs, FIRST_TICK_MS));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.channels.close();
  }

  async tick(): Promise<TickCounts> {
    const queued = await this.queueDue();
    const counts = { queued, sent: 0, failed: 0, cancelled: 0 };
    for (let i = 0; i < BATCH && !this.stopped; i++) {
      const outcome = await this.sendOne();
      if (outcome === undefined) break;
      counts[outcome]++;
    }
    return counts;
  }

  private schedule(delayMs = this.config.expiry.intervalMs): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error: Error) => this.logger.error(`Expiry notice tick failed: ${error.message}`))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, delayMs);
    this.timer.unref();
  }

  private async queueDue(): Promise<number> {
    const thresholds = this.config.expiry.thresholdsDays;
    const [, affected] = await this.dataSource.query(
      `INSERT INTO certificate_expiry_notices (certificate_id, threshold_days, not_after)
       SELECT c.id, t.days, c.not_after FROM certificates c
       CROSS JOIN LATERAL (SELECT min(d) AS days FROM unnest($1::int[]) d WHERE c.not_after <= now() + make_interval(days => d)) t
       WHERE c.notification_email <> '' AND c.revoked_at IS NULL AND c.not_after > now()
         AND c.not_after <= now() + make_interval(days => $2) AND t.days IS NOT NULL
       ON CONFLICT ON CONSTRAINT certificate_expiry_notices_once DO NOTHING`,
      [thresholds, Math.max(...thresholds)],
    );
    return Number(affected ?? 0);
  }

  /** Claims and sends one due notice; undefined when none is due (or all are claimed elsewhere). */
  private sendOne(): Promise<'sent' | 'failed' | 'cancelled' | undefined> {
    return this.dataSource.transaction(async (m) => {
      const [notice]: ClaimedNotice[] = await m.query(
        `SELECT n.id, n.threshold_days, n.not_after, n.attempts, c.id AS certificate_id, c.org_id, c.common_name,
           c.serial_number, c.issuer, c.notification_email, c.not_after AS current_not_after, c.revoked_at
         FROM certificate_expiry_notices n JOIN certificates c ON c.id = n.certificate_id
         WHERE n.status = 'pending' AND n.next_attempt_at <= now()
         ORDER BY n.next_attempt_at, n.id LIMIT 1 FOR UPDATE OF n SKIP LOCKED`,
      );
      if (!notice) return undefined;
      const recipients = notice.notification_email.split(',').map((a) => a.trim()).filter(Boolean);
      if (!recipients.length || notice.revoked_at || new Date(notice.current_not_after) <= new Date()) {
        // Turned off, revoked or expired since it was queued: nothing to say any more.
        await m.query(`UPDATE certificate_expiry_notices SET status = 'cancelled' WHERE id = $1`, [notice.id]);
        return 'cancelled';
      }
      const facts: ExpiryFacts = {
        certificateId: notice.certificate_id,
        commonName: notice.common_name,
        serialNumber: notice.serial_number,
        issuer: notice.issuer,
        notAfter: new Date(notice.not_after),
        thresholdDays: notice.threshold_days,
        deployedAt: await this.deployedAt(m, notice.certificate_id),
        recipients,
      };
      try {
        await this.channels.send(facts);
      } catch (error) {
        await this.recordFailure(m, notice, (error as Error).message ?? 'unknown error');
        return 'failed';
      }
      await m.query(`UPDATE certificate_expiry_notices SET status = 'sent', sent_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = $1`, [
        notice.id,
      ]);
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.CertificateExpiryNotified,
          orgId: notice.org_id,
          target: notice.common_name,
          description: `${notice.threshold_days}-day notice of expiry on ${facts.notAfter.toISOString()} (serial ${notice.serial_number}) sent by ${this.channels.describe(recipients)}`,
        },
        m,
      );
      return 'sent';
    });
  }

  private async recordFailure(m: EntityManager, notice: ClaimedNotice, reason: string): Promise<void> {
    const attempts = notice.attempts + 1;
    const giveUp = attempts >= MAX_ATTEMPTS;
    const backoffMinutes = Math.min(MAX_BACKOFF_MINUTES, 2 ** (attempts - 1));
    const message = reason.slice(0, 500);
    await m.query(
      `UPDATE certificate_expiry_notices SET attempts = $2, last_error = $3, status = $4,
         next_attempt_at = now() + make_interval(mins => $5) WHERE id = $1`,
      [notice.id, attempts, message, giveUp ? 'failed' : 'pending', backoffMinutes],
    );
    this.logger.warn(`Expiry notice ${notice.id} for ${notice.common_name} failed (attempt ${attempts}): ${message}`);
    if (giveUp) {
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.CertificateExpiryNotified,
          outcome: 'Failed',
          orgId: notice.org_id,
          target: notice.common_name,
          description: `${notice.threshold_days}-day notice given up after ${attempts} attempts: ${message}`,
        },
        m,
      );
    }
  }

  private async deployedAt(m: EntityManager, certificateId: number): Promise<string[]> {
    const rows: { host: string; port: number; ip: string }[] = await m.query(
      'SELECT host, port, ip FROM certificate_endpoints WHERE certificate_id = $1 ORDER BY host, port',
      [certificateId],
    );
    return rows.map((r) => `${r.host}:${r.port}${r.ip && r.ip !== r.host ? ` (${r.ip})` : ''}`);
  }
}
