import { INestApplication, Logger } from '@nestjs/common';
import { Server } from 'node:http';
import { AppConfig } from '@app/config';
import { Drain } from '@app/observability';
import { expectDatabaseConnectionsToClose } from '@app/persistence';
import { DiscoveryService } from '@app/pki/discovery-service';

/**
 * The SIGTERM sequence: /health answers 503 at once (for SHUTDOWN_DELAY_MS the instance still
 * accepts, so the load balancer sees it); then the listeners close, in-flight requests and
 * running discoveries get SHUTDOWN_GRACE_MS to finish; then the background work stops
 * (sweeper, audit sealer, key pool: their state is in the database, another instance carries
 * on) and the database pool closes. Resolves when the process may exit 0.
 */
export async function drainAndClose(apps: INestApplication[], config: AppConfig, logger: Logger): Promise<void> {
  const drains = apps.map((app) => app.get(Drain));
  for (const drain of drains) drain.begin();
  const inFlightAtStart = drains.reduce((n, d) => n + d.requestsInFlight, 0);
  const discoveries = apps.reduce((n, app) => n + (optional(app, DiscoveryService)?.runningCount ?? 0), 0);
  logger.log(
    `Draining: /health answers 503; listeners close in ${config.shutdownDelayMs} ms; ${inFlightAtStart} request(s) and ${discoveries} discovery job(s) in flight`,
  );
  if (config.shutdownDelayMs > 0) await sleep(config.shutdownDelayMs);

  const servers = apps.map((app) => app.getHttpServer() as Server);
  for (const server of servers) server.close();
  const deadline = Date.now() + config.shutdownGraceMs;
  const idle = await Promise.race([Promise.all(drains.map((d) => d.idle())).then(() => true), sleep(config.shutdownGraceMs).then(() => false)]);
  if (!idle) {
    const left = drains.reduce((n, d) => n + d.requestsInFlight, 0);
    logger.warn(`${left} request(s) still running after SHUTDOWN_GRACE_MS; closing their connections`);
  }
  for (const server of servers) server.closeAllConnections();
  for (const app of apps) await optional(app, DiscoveryService)?.settle(Math.max(0, deadline - Date.now()));
  expectDatabaseConnectionsToClose();
  for (const app of apps) await app.close();
  logger.log(`Stopped: drained ${inFlightAtStart} request(s) and ${discoveries} discovery job(s)${idle ? '' : ' (some cut at SHUTDOWN_GRACE_MS)'}`);
}

function optional<T>(app: INestApplication, type: new (...args: never[]) => T): T | undefined {
  try {
    return app.get(type, { strict: false });
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
