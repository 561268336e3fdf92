import { INestApplication } from '@nestjs/common';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AppConfig, loadConfig } from '@app/config';
import { createApp, createApiUser, ensureFirstAdmin, INITIAL_PASSWORD_FILE } from '@app/server';
import { PkiModule } from '../../apps/pki/src/pki.module';
import { VaultModule } from '../../apps/vault/src/vault.module';
import { createStartedTestDatabase } from './database';

export interface TestServices {
  vault: INestApplication;
  pki: INestApplication;
  /** Base URLs of the listening services (plain HTTP on loopback). */
  vaultUrl: string;
  pkiUrl: string;
  dataSource: DataSource;
  databaseUrl: string;
  config: AppConfig;
  adminToken: string;
  close(): Promise<void>;
}

/**
 * Both services as production builds them (same modules, middleware, guard, envelope),
 * on a fresh database cloned from the migrated template, listening on loopback.
 */
export async function startTestServices(env: Record<string, string> = {}, databaseUrl?: string): Promise<TestServices> {
  // Without a database of the caller's, a clone of the run's started template: the first start
  // is made there once, not in every file (its bcrypt hash cost a quarter of a CPU-second).
  const started = databaseUrl ? undefined : await createStartedTestDatabase();
  const url = databaseUrl ?? started!.url;
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-test-'));
  // No periodic password verification unless a test asks: its logins would race the test's own.
  // No RSA keys generated ahead either (8 per file, both services: over a CPU-second a file)
  // unless a test asks; without the pool every key is generated when asked for.
  const config = loadConfig({ TLS_MODE: 'off', DATA_DIR: dataDir, LOG_LEVEL: 'error', DB_POOL_SIZE: '5', VERIFY_INTERVAL_MS: '0', SSH_KEY_POOL_SIZE: '0', ...env });
  const vault = await createApp(VaultModule.forRoot(config, url), config);
  const pki = await createApp(PkiModule.forRoot(config, url), config);
  await vault.listen(0, '127.0.0.1');
  await pki.listen(0, '127.0.0.1');
  const dataSource = vault.get(DataSource);
  const adminToken = (await ensureFirstAdmin(dataSource, dataDir))?.token ?? started?.firstAdmin.token ?? '';
  if (started) {
    // What the first start leaves in DATA_DIR (bootstrap-admin.ts).
    writeFileSync(join(dataDir, 'initial-admin-token'), `${started.firstAdmin.token}\n`, { mode: 0o600, flag: 'wx' });
    writeFileSync(join(dataDir, INITIAL_PASSWORD_FILE), `${started.firstAdmin.password}\n`, { mode: 0o600, flag: 'wx' });
  }
  return {
    vault,
    pki,
    vaultUrl: await baseUrl(vault),
    pkiUrl: await baseUrl(pki),
    dataSource,
    databaseUrl: url,
    config,
    adminToken,
    async close() {
      await vault.close();
      await pki.close();
    },
  };
}

async function baseUrl(app: INestApplication): Promise<string> {
  const address = app.getHttpServer().address();
  return `http://127.0.0.1:${address.port}`;
}

/** A user of the default organisation with an API token, made like the admin CLI makes one. */
export async function createUserWithToken(
  services: TestServices,
  username: string,
  role = 'Password Administrator',
  options: { superAdmin?: boolean; allowedHosts?: string } = {},
): Promise<{ id: number; token: string }> {
  const [org] = await services.dataSource.query(`SELECT id FROM organizations WHERE name = 'Default'`);
  const { userId, token } = await createApiUser(services.dataSource, { orgId: org.id, username, role, ...options });
  return { id: userId, token };
}
