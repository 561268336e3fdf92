import 'reflect-metadata';
import { loadConfig } from '@app/config';
import { createApp } from '@app/server';
import { VaultModule } from '../../apps/vault/src/vault.module';

// The real vault service (TLS off), for the password-read benchmark.
async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, TLS_MODE: 'off', LOG_LEVEL: 'error' });
  const app = await createApp(VaultModule.forRoot(config, config.databaseUrl!), config);
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`listening ${app.getHttpServer().address().port}\n`);
  process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
}
main();
