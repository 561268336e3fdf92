import { join } from 'node:path';
import { Client } from 'pg';
import { AppConfig } from '@app/config';
import { holdEmbeddedPostgres, runningEmbeddedPostgres, startEmbeddedPostgres } from '@app/persistence';

export interface Database {
  url: string;
  /** Stops the embedded server this process started; undefined for DATABASE_URL or a server it only joined. */
  stop?: () => Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise a real PostgreSQL embedded in DATA_DIR/postgres.
 * `serve` (the services) refuses a DATA_DIR whose embedded server another live process holds,
 * naming it; `join` (the admin CLI) works on the server already running there, so it can be
 * used beside the services, and starts one of its own only when none runs.
 */
export async function prepareDatabase(config: AppConfig, mode: 'serve' | 'join' = 'serve', command = 'npm start'): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const dir = join(config.dataDir, 'postgres');
  const running = runningEmbeddedPostgres(dir);
  if (running && mode === 'serve' && running.holder && running.holder.pid !== process.pid) {
    const { holder } = running;
    throw new Error(
      `DATA_DIR ${config.dataDir} is in use: its embedded PostgreSQL (pid ${running.postgresPid}) belongs to ` +
        `process ${holder.pid} (${holder.command}, started ${holder.startedAt}). Stop that process first, ` +
        `or give this one another DATA_DIR.`,
    );
  }
  let url: string;
  let stop: (() => Promise<void>) | undefined;
  if (running) {
    // Joined: the services', or one left running by a process that died (serve adopts it).
    url = running.url;
    if (mode === 'serve') {
      const letGo = holdEmbeddedPostgres(dir, command);
      stop = async () => {
        letGo();
        stopPostmaster(running.postgresPid);
      };
    }
  } else {
    const embedded = await startEmbeddedPostgres(dir);
    const letGo = holdEmbeddedPostgres(dir, command);
    url = embedded.url;
    stop = async () => {
      await embedded.stop();
      letGo();
    };
  }
  await ensureVaultDatabase(url);
  const vault = new URL(url);
  vault.pathname = '/vault';
  return { url: vault.toString(), stop };
}

async function ensureVaultDatabase(serverUrl: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'vault'`);
    if (!rowCount) await client.query('CREATE DATABASE vault');
  } finally {
    await client.end();
  }
}

// A server this process adopted was not spawned by it: SIGINT is PostgreSQL's fast shutdown.
function stopPostmaster(pid: number): void {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    // already gone
  }
}
