import { INestApplication, Logger } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Actor } from '@app/audit';
import { LogFormat, LogLevel } from '@app/config';
import { CatalogRoute, clientIp, Outcome, ParsedRequest, requestNote, RouteAware, routeCatalog, RouteMatcher } from '@app/http';
import { Drain } from './drain';
import { logLevels } from './logger';
import { MetricsService } from './metrics.service';

// A caller's X-Request-Id is kept only when it is short and plain (it goes into every log line).
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

type Observed = IncomingMessage & RouteAware & { actor?: Actor; requestId?: string };

/**
 * Sees every request of one service before anything else (the lean routes included): gives
 * it a request id (the caller's X-Request-Id or a new one, echoed in the response header),
 * and when the answer ends, counts it in the metrics and writes the request log line.
 * The operation is named from route metadata, never from the raw path.
 */
export class RequestObserver {
  private readonly logger = new Logger('Request');
  private byHandler?: Map<Function, CatalogRoute>;
  private matcher?: RouteMatcher;

  constructor(
    private readonly app: INestApplication,
    private readonly metrics: MetricsService,
    private readonly drain: Drain,
    private readonly format: LogFormat,
    level: LogLevel,
  ) {
    // JSON request lines are written at `log`, text ones at `debug`: built only when written.
    this.writeLines = logLevels(level).includes(format === 'json' ? 'log' : 'debug');
  }

  private readonly writeLines: boolean;

  install(server: Server): void {
    const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.begin(req as Observed, res);
      for (const listener of listeners) listener.call(server, req, res);
    });
  }

  private begin(req: Observed, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    const offered = req.headers['x-request-id'];
    const id = typeof offered === 'string' && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
    req.requestId = id;
    res.setHeader('X-Request-Id', id);
    // A draining instance closes each connection after its answer.
    if (this.drain.draining) res.setHeader('Connection', 'close');
    this.drain.requestStarted();
    // 'close' ends every response, finished or cut off (writableFinished tells which).
    res.once('close', () => {
      this.drain.requestEnded();
      this.end(req, res, id, Number(process.hrtime.bigint() - started) / 1e9);
    });
  }

  private end(req: Observed, res: ServerResponse, id: string, seconds: number): void {
    const operation = this.operationOf(req);
    const note = requestNote(res);
    const outcome: Outcome = !res.writableFinished
      ? 'aborted'
      : (note.outcome ?? (res.statusCode >= 500 ? 'error' : res.statusCode === 404 ? 'not_found' : 'success'));
    const method = req.method ?? 'GET';
    this.metrics.requests.inc({ operation, method, outcome });
    this.metrics.duration.observe({ operation, outcome }, seconds);
    if (!this.writeLines) return;
    const line = {
      requestId: id,
      service: this.metrics.service,
      operation,
      method,
      status: res.statusCode,
      outcome,
      durationMs: Math.round(seconds * 1e6) / 1e3,
      userId: req.actor?.id ?? null,
      orgId: req.actor?.orgId ?? null,
      client: clientIp(req as unknown as ParsedRequest),
      ...(note.errorId ? { errorId: note.errorId } : {}),
    };
    if (this.format === 'json') this.logger.log(line);
    else this.logger.debug(`${id} ${line.service} ${operation} ${outcome} ${res.statusCode} ${line.durationMs}ms user=${line.userId ?? '-'} org=${line.orgId ?? '-'} client=${line.client}${note.errorId ? ` error=${note.errorId}` : ''}`);
  }

  /** The matched handler's operation name, else the catalog route the path belongs to. */
  private operationOf(req: Observed): string {
    if (!this.byHandler) {
      const routes = routeCatalog(this.app.get(ModulesContainer));
      this.byHandler = new Map(routes.map((r) => [r.handler, r]));
      this.matcher = new RouteMatcher(routes);
    }
    const handler = req.route_?.handler;
    const route = (handler && this.byHandler.get(handler)) || this.matcher!.match(req.method ?? 'GET', (req.url ?? '/').split('?')[0]);
    if (!route) return 'unmatched';
    return route.operation?.name ?? `${route.method} ${route.path}`;
  }
}
