import { Controller, Get, Inject, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig, APP_CONFIG } from '@app/config';
import { JsonReply, Public } from '@app/http';

/**
 * For load balancers: public, no secret; reports whether the database answers. Every failure
 * to answer (unreachable, refusing connections, out of connection slots, wrong credentials,
 * too slow) is 503: the instance cannot serve, whatever the cause, and a monitor wants one
 * signal. The next probe asks again, so 200 comes back by itself when the database does.
 */
@Public()
@Controller('health')
export class HealthController {
  private readonly logger = new Logger('Health');
  private failing = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  async health(): Promise<JsonReply> {
    try {
      await withTimeout(this.dataSource.query('SELECT 1'), this.config.dbConnectTimeoutMs);
      if (this.failing) this.logger.log('The database answers again');
      this.failing = false;
      return new JsonReply({ status: 'ok' });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // One line when it starts failing, not one per probe.
      if (!this.failing) this.logger.warn(`The database does not answer: ${reason}`);
      this.failing = true;
      return new JsonReply({ status: 'unavailable', reason: 'The database does not answer' }, 503);
    }
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => undefined); // a late failure after the timeout is not unhandled
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
