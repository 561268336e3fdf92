import { Controller, Get, Inject, Req } from '@nestjs/common';
import { AuthedRequest, AuthenticatedInHandler, Authenticator, Permission } from '@app/auth';
import { AppConfig, APP_CONFIG } from '@app/config';
import { Operation, TextReply } from '@app/http';
import { MetricsService } from './metrics.service';

/**
 * GET /metrics, Prometheus text format. Needs a token whose role holds metrics.read, or none
 * when the operator sets METRICS_PUBLIC=true (e.g. scraped on a private network). Besides the
 * usual token carriers, `Authorization: Bearer <token>` is taken, as Prometheus sends it.
 */
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly authenticator: Authenticator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Operation('GET METRICS', Permission.MetricsRead)
  @AuthenticatedInHandler()
  async scrape(@Req() req: AuthedRequest): Promise<TextReply> {
    if (!this.config.metricsPublic) {
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (bearer && !req.headers['authtoken']) req.headers['authtoken'] = bearer;
      req.actor = await this.authenticator.authenticate(req, Permission.MetricsRead);
    }
    return new TextReply(await this.metrics.exposition());
  }
}
