import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/config';
import { RepeatingTask } from '@app/server';
import { RotationEventBody, SIGNATURE_HEADER, retryDelaySeconds, signRotationEvent } from './rotation-webhook';

const TIMEOUT_MS = 10_000;
/** After this many failed deliveries (about two days at the longest delay) an event is given up. */
const MAX_ATTEMPTS = 60;

export type RotationFact = Omit<RotationEventBody, 'event' | 'id' | 'time'> & { orgId: number };

/**
 * The rotation webhook (ROTATION_WEBHOOK_URL): an outbox written in the transaction that
 * stores a rotation, so an event exists exactly when the rotation does, and a delivery
 * loop on every instance that claims one event at a time (FOR UPDATE SKIP LOCKED, held
 * while posting): at least once, by one instance at a time, retried with back-off.
 */
@Injectable()
export class RotationEvents implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RotationWebhook');
  private readonly loop: RepeatingTask;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.loop = new RepeatingTask(this.logger, 'Delivery', () => this.deliverDue(), () => Math.min(this.config.rotation.tickMs, 1000));
  }

  get enabled(): boolean {
    return this.config.rotation.webhookUrl !== undefined;
  }

  /** In the transaction that stores the rotation (or records its failure). */
  async record(m: EntityManager, fact: RotationFact): Promise<void> {
    if (!this.enabled) return;
    const { orgId, ...rest } = fact;
    await m.query(
      `INSERT INTO rotation_events (org_id, payload)
       SELECT $1, $2::jsonb || jsonb_build_object('event', 'password.rotated', 'id', gen_random_uuid()::text, 'time', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
      [orgId, JSON.stringify(rest)],
    );
  }

  onApplicationBootstrap(): void {
    if (this.enabled) this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** Delivers what is due; returns how many were delivered. */
  async deliverDue(limit = 100): Promise<number> {
    let delivered = 0;
    for (let n = 0; n < limit && !this.loop.stopped; n++) {
      const outcome = await this.deliverOne();
      if (outcome === 'none') break;
      if (outcome === 'delivered') delivered++;
    }
    return delivered;
  }

  private deliverOne(): Promise<'none' | 'delivered' | 'failed'> {
    return this.dataSource.transaction(async (m) => {
      const [event] = await m.query(
        `SELECT id, payload::text AS body, attempts FROM rotation_events
         WHERE delivered_at IS NULL AND attempts < ${MAX_ATTEMPTS} AND next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
      );
      if (!event) return 'none';
      const error = await this.post(event.body as string);
      if (!error) {
        await m.query('UPDATE rotation_events SET delivered_at = now(), attempts = attempts + 1, last_error = $2 WHERE id = $1', [event.id, '']);
        return 'delivered';
      }
      await m.query(
        `UPDATE rotation_events SET attempts = attempts + 1, last_error = $2, next_attempt_at = now() + make_interval(secs => $3) WHERE id = $1`,
        [event.id, error.slice(0, 500), retryDelaySeconds(event.attempts)],
      );
      this.logger.warn(`Rotation event ${event.id} not delivered (attempt ${event.attempts + 1}): ${error}`);
      return 'failed';
    });
  }

  private async post(body: string): Promise<string | undefined> {
    const { webhookUrl, webhookSecret } = this.config.rotation;
    try {
      const response = await fetch(webhookUrl!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signRotationEvent(webhookSecret!, body, Math.floor(Date.now() / 1000)) },
        body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
      });
      await response.arrayBuffer().catch(() => undefined);
      return response.ok ? undefined : `the webhook answered HTTP ${response.status}`;
    } catch (error) {
      return (error as Error).message;
    }
  }

}
