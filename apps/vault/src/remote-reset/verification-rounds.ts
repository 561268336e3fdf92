import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/config';
import { RepeatingTask } from '@app/server';
import { PasswordVerifier } from './password-verifier';
import { RemotePasswords } from './remote-passwords';

/** Accounts claimed per round and instance. */
const BATCH = 50;
/** Verifications in flight per instance. */
const CONCURRENCY = 8;
/** Longest pause between rounds; a short interval polls as often as it asks. */
const MAX_POLL_MS = 60_000;
/** How often pending changes are looked for, at the latest (and once at start). */
const SETTLE_POLL_MS = 10_000;

/**
 * Background work of remote password reset, on every instance: at start and then now and
 * then, settle the pending changes a crash left (each under its account's lock, so exactly
 * one instance acts); every VERIFY_INTERVAL_MS, verify each account of every resource whose
 * remote reset is configured. An account is claimed (verify_claimed_at, FOR UPDATE SKIP
 * LOCKED) before it is verified, so each is verified once per interval across instances.
 */
@Injectable()
export class VerificationRounds implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('PasswordVerification');
  private readonly loop: RepeatingTask;
  private lastSettle = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly remote: RemotePasswords,
    private readonly verifier: PasswordVerifier,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.loop = new RepeatingTask(this.logger, 'Round', () => this.round(), () => this.pause());
  }

  onApplicationBootstrap(): void {
    this.loop.start(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** Settles every pending change nobody holds; returns how many were settled one way or the other. */
  async settleAll(startedBy = 'the settler (interrupted remote changes)'): Promise<number> {
    let settled = 0;
    for (const accountId of await this.remote.pendingAccounts()) {
      if (this.loop.stopped) break;
      const outcome = await this.remote.settle(accountId, startedBy).catch((error: Error) => {
        this.logger.warn(`Settling account ${accountId} failed: ${error.message}`);
        return 'undecided' as const;
      });
      if (outcome === 'committed' || outcome === 'kept') settled++;
    }
    return settled;
  }

  /** One verification round: claims due accounts and verifies them; returns how many. */
  async verifyDue(): Promise<number> {
    const interval = this.config.verifyIntervalMs;
    if (interval <= 0) return 0;
    // An UPDATE's answer through TypeORM is [rows, count].
    const [claimed]: [{ id: number }[], number] = await this.dataSource.query(
      `UPDATE accounts SET verify_claimed_at = now() WHERE id IN (
         SELECT a.id FROM accounts a JOIN resources r ON r.id = a.resource_id
         WHERE r.remote_account_id IS NOT NULL
           AND (a.last_verified_at IS NULL OR a.last_verified_at < now() - make_interval(secs => $1 / 1000.0))
           AND (a.verify_claimed_at IS NULL OR a.verify_claimed_at < now() - make_interval(secs => $1 / 1000.0))
         ORDER BY a.last_verified_at NULLS FIRST LIMIT $2 FOR UPDATE OF a SKIP LOCKED)
       RETURNING id`,
      [interval, BATCH],
    );
    // A few logins at once: each mostly waits on the target.
    const queue = claimed.map((c) => c.id);
    const verifyNext = async (): Promise<void> => {
      for (let id = queue.shift(); id !== undefined && !this.loop.stopped; id = queue.shift()) {
        await this.verifier.verifyForServer(id, 'the periodic verification').catch((error: Error) => this.logger.warn(`Verifying account ${id} failed: ${error.message}`));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, verifyNext));
    return claimed.length;
  }


  private async round(): Promise<void> {
    if (Date.now() - this.lastSettle >= SETTLE_POLL_MS) {
      this.lastSettle = Date.now();
      await this.settleAll();
    }
    while (!this.loop.stopped && (await this.verifyDue()) === BATCH);
  }

  private pause(): number {
    const interval = this.config.verifyIntervalMs;
    return Math.min(interval > 0 ? interval : MAX_POLL_MS, MAX_POLL_MS, SETTLE_POLL_MS);
  }
}
