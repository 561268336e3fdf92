import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RepeatingTask } from '@app/server';
import { DirectoryConfig } from './directory-config';
import { DirectorySync } from './directory-sync';

const TICK_MS = 15_000;

/**
 * The periodic synchronisation (each directory's SYNCINTERVAL; 0: on demand only). Every
 * instance ticks; an instance claims a due directory by moving its last_sync_at in one
 * statement, so one instance runs each synchronisation. A failure is logged and kept as the
 * last result; the next try comes an interval later.
 */
@Injectable()
export class DirectoryScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Directory');
  private readonly loop = new RepeatingTask(this.logger, 'Directory synchronisation', () => this.tick(), () => TICK_MS);

  constructor(
    private readonly dataSource: DataSource,
    private readonly directories: DirectoryConfig,
    private readonly sync: DirectorySync,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  async tick(): Promise<void> {
    // An UPDATE answers [rows, count] through TypeORM.
    const [claimed] = (await this.dataSource.query(
      `UPDATE directories SET last_sync_at = now() WHERE sync_interval_seconds > 0
         AND (last_sync_at IS NULL OR last_sync_at <= now() - make_interval(secs => sync_interval_seconds)) RETURNING org_id`,
    )) as [{ org_id: number }[], number];
    for (const { org_id } of claimed) {
      const row = await this.directories.find(org_id);
      if (!row) continue;
      try {
        await this.sync.sync(row, 'scheduled synchronisation');
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.logger.error(`Directory synchronisation of organisation ${org_id} failed: ${message}`);
        await this.dataSource.query('UPDATE directories SET last_sync_result = $2 WHERE org_id = $1', [org_id, JSON.stringify({ error: message })]);
      }
    }
  }
}
