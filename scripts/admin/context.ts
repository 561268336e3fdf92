import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { Keyring, loadMasterKey } from '@app/crypto';
import { createDataSource, runMigrations } from '@app/persistence';
import { prepareDatabase } from '@app/server';

export interface AdminContext {
  config: AppConfig;
  dataSource: DataSource;
  databaseUrl: string;
  /** The keyring, loaded on first use (not every command needs the master key). */
  keyring(): Promise<Keyring>;
  close(): Promise<void>;
}

export async function openAdminContext(config: AppConfig): Promise<AdminContext> {
  const database = await prepareDatabase(config, 'join', 'npm run admin');
  await runMigrations(database.url);
  const dataSource = createDataSource(database.url, 2);
  await dataSource.initialize();
  let keyring: Keyring | undefined;
  return {
    config,
    dataSource,
    databaseUrl: database.url,
    async keyring() {
      if (!keyring) {
        keyring = new Keyring(dataSource, loadMasterKey(config));
        await keyring.load();
      }
      return keyring;
    },
    async close() {
      await dataSource.destroy();
      await database.stop?.();
    },
  };
}

/** The organisation a command acts in: --org NAME, or the default one. */
export async function orgId(dataSource: DataSource, name?: string): Promise<number> {
  const [org] = await dataSource.query('SELECT id FROM organizations WHERE lower(name) = lower($1)', [name ?? 'Default']);
  if (!org) throw new Error(`No organisation named ${name ?? 'Default'}`);
  return org.id;
}
