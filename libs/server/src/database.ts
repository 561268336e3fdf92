import { join } from 'node:path';
import { Client } from 'pg';
import { AppConfig } from '@app/config';
import { startEmbeddedPostgres } from '@app/persistence';

export interface Database {
  url: string;
  /** Stops the embedded server; undefined for an external DATABASE_URL. */
  stop?: () => Promise<void>;
}

/** DATABASE_URL when set; otherwise a real PostgreSQL embedded in DATA_DIR/postgres. */
export async function prepareDatabase(config: AppConfig): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const embedded = await startEmbeddedPostgres(join(config.dataDir, 'postgres'));
  const client = new Client({ connectionString: embedded.url });
  await client.connect();
  const { rowCount } = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'vault'`);
  if (!rowCount) await client.query('CREATE DATABASE vault');
  await client.end();
  const url = new URL(embedded.url);
  url.pathname = '/vault';
  return { url: url.toString(), stop: embedded.stop };
}
