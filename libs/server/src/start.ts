import { DynamicModule, INestApplication, Logger } from '@nestjs/common';
import { createLogger, installProcessFaultHandlers } from '@app/observability';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AppConfig, ConfigError, loadConfig } from '@app/config';
import { expectDatabaseConnectionsToClose, leaveShutdownSignalsToProcess, runMigrations } from '@app/persistence';
import { ensureFirstAdmin, FirstAdmin } from './bootstrap-admin';
import { retireInitialTokenFile } from './api-tokens';
import { createApp } from './create-app';
import { firstAdminSentence, printFirstAdmin } from './first-admin-notice';
import { prepareDatabase } from './database';
import { secureDataDir } from './data-dir';
import { drainAndClose } from './shutdown';
import { presentCaIssuedCertificate, serverTls } from './tls';

export interface ServiceDefinition {
  name: 'vault' | 'pki';
  port: (config: AppConfig) => number;
  module: (config: AppConfig, databaseUrl: string) => DynamicModule;
}

/** Starts the given services in this process; the entry points differ only in the list. */
export async function startServices(services: ServiceDefinition[]): Promise<void> {
  const logger = new Logger('Start');
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  Logger.overrideLogger(createLogger(config.logFormat, config.logLevel));
  installProcessFaultHandlers();
  secureDataDir(config.dataDir, (message) => logger.warn(message));
  const database = await prepareDatabase(config);
  leaveShutdownSignalsToProcess();
  const apps: INestApplication[] = [];
  let first: FirstAdmin | undefined;
  const scheme = config.tlsMode === 'off' ? 'http' : 'https';
  try {
    const applied = await runMigrations(database.url);
    if (applied.length) logger.log(`Database schema: applied ${applied.length} migration${applied.length === 1 ? '' : 's'}`);
    logger.debug(`Applied migrations: ${applied.join(', ') || 'none'}`);
    const tls = await serverTls(config);
    for (const service of services) {
      apps.push(await createApp(service.module(config, database.url), config, tls));
    }
    for (const app of apps) await app.init();
    first = await ensureFirstAdmin(apps[0].get(DataSource), config.dataDir);
    const retired = await retireInitialTokenFile(apps[0].get(DataSource), config.dataDir);
    if (retired) logger.log(`Removed ${join(config.dataDir, 'initial-admin-token')}: ${retired}`);
    if (tls) await presentCaIssuedCertificate(apps, config);
    for (const [i, service] of services.entries()) {
      await apps[i].listen(service.port(config), config.bindAddress);
      logger.log(`${service.name} listening on ${scheme}://${config.bindAddress}:${service.port(config)}`);
    }
  } catch (error) {
    // A failed start leaves nothing running behind it: no half-open pools, no embedded server.
    expectDatabaseConnectionsToClose();
    for (const app of apps) await app.close().catch(() => undefined);
    await database.stop?.().catch(() => undefined);
    throw error;
  }
  if (first) {
    const vault = services.find((s) => s.name === 'vault') ?? services[0];
    const place = {
      dataDir: config.dataDir,
      vaultUrl: `${scheme}://localhost:${vault.port(config)}`,
      caFile: config.tlsMode === 'self-signed' ? join(config.dataDir, 'tls', 'service-ca.crt') : undefined,
    };
    // Log shippers keep what they read: the token stays in its file (mode 0600) only.
    if (config.logFormat === 'json') logger.log(firstAdminSentence(place));
    else printFirstAdmin(first, place);
  }
  const stop = async (signal: string) => {
    logger.log(`${signal} received`);
    await drainAndClose(apps, config, logger).catch((error) => logger.error(`Shutdown: ${error instanceof Error ? error.message : error}`));
    await database.stop?.().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

/** Which setting chose each port, for a start-up failure's message (empty when the configuration is itself wrong). */
export function startupPorts(): Record<number, string> {
  try {
    const config = loadConfig();
    return { [config.vaultPort]: 'VAULT_PORT', [config.pkiPort]: 'PKI_PORT' };
  } catch {
    return {};
  }
}
