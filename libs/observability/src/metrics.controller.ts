import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { Response } from 'express';
import { AuthedRequest, AuthenticatedInHandler, Authenticator, Permission } from '@app/auth';
import { AppConfig, APP_CONFIG } from '@app/config';
import { AppError, ErrorCode, Operation, TextReply } from '@app/http';
import { MetricsService } from './metrics.service';

/**
 * GET /metrics, Prometheus text format. Needs a token whose role holds metrics.read, or none
 * when the operator sets METRICS_PUBLIC=true (e.g. scraped on a private network). Besides the
 * usual token carriers, `Authorization: Bearer <token>` is taken, as Prometheus sends it.
 * Refusals answer as a scraper expects (401 with a Bearer challenge, 403), not the envelope's
 * HTTP 200, so a bad credential shows up as such instead of as a parse error.
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
  async scrape(@Req() req: AuthedRequest, @Res({ passthrough: true }) res: Response): Promise<TextReply> {
    if (!this.config.metricsPublic) {
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (bearer && !req.headers['authtoken']) req.headers['authtoken'] = bearer;
      try {
        req.actor = await this.authenticator.authenticate(req, Permission.MetricsRead);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const forbidden = error.code === ErrorCode.Forbidden;
        if (!forbidden) res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        return new TextReply(`${error.message}\n`, forbidden ? 403 : 401);
      }
    }
    return new TextReply(await this.metrics.exposition());
  }
}
