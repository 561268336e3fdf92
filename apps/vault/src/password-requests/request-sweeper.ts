import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { APP_CONFIG, AppConfig } from '@app/config';
import { RepeatingTask } from '@app/server';
import { CheckinFinisher } from './checkin-finisher';

/** Rows handled per kind and sweep, so one sweep never holds the database for long. */
const BATCH = 50;

export interface SweepCounts {
  expired: number;
  checkedIn: number;
  recovered: number;
}

/**
 * The workflow's timers, kept in the database so they survive restarts: requests left
 * unanswered (or approved and never used) expire, check-outs whose time ran out are
 * checked in (with the account's reset), and remote resets whose instance died are
 * settled. Every instance sweeps; each due row is claimed with FOR UPDATE SKIP LOCKED
 * inside the transaction that changes it, so exactly one instance acts on it.
 */
@Injectable()
export class RequestSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RequestSweeper');
  private readonly loop: RepeatingTask;

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly finisher: CheckinFinisher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.loop = new RepeatingTask(this.logger, 'Sweep', () => this.sweep(), () => this.config.sweepIntervalMs);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  async sweep(): Promise<SweepCounts> {
    const expired = await this.expireRequests();
    let checkedIn = 0;
    while (checkedIn < BATCH && !this.loop.stopped && (await this.finisher.checkInLapsed())) checkedIn++;
    let recovered = 0;
    while (recovered < BATCH && !this.loop.stopped && (await this.finisher.recoverOne())) recovered++;
    return { expired, checkedIn, recovered };
  }


  private expireRequests(): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const rows: Record<string, any>[] = await m.query(
        `WITH due AS (
           SELECT id FROM password_requests WHERE status IN ('waiting', 'approved') AND expires_at <= now()
           ORDER BY expires_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED
         ), done AS (
           UPDATE password_requests pr SET status = 'expired' FROM due WHERE pr.id = due.id
           RETURNING pr.id, pr.account_id, pr.requester_id
         )
         SELECT done.id, done.account_id, a.name AS account_name, r.id AS resource_id, r.name AS resource_name,
           r.org_id, u.username
         FROM done JOIN accounts a ON a.id = done.account_id JOIN resources r ON r.id = a.resource_id
           JOIN users u ON u.id = done.requester_id`,
      );
      for (const row of rows) {
        await this.audit.record(
          {
            category: 'Resource',
            operation: AuditOperation.RequestExpired,
            orgId: row.org_id,
            resourceId: row.resource_id,
            resourceName: row.resource_name,
            accountId: row.account_id,
            accountName: row.account_name,
            requestId: row.id,
            description: `Request of ${row.username} expired unanswered or unused`,
          },
          m,
        );
      }
      return rows.length;
    });
  }

}
