import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '@app/persistence';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A scratch database on DATABASE_URL's server, or on an embedded one. */
export async function benchDatabase(): Promise<BenchDatabase> {
  let serverUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!serverUrl) {
    const embedded = await startEmbeddedPostgres(join(__dirname, '..', '..', '.bench-db'));
    serverUrl = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const name = `bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      await stopEmbedded?.();
    },
  };
}

/** Starts a server script (compiled, in dist/bench/servers) and waits for "listening <port>". */
export function startServer(script: string, env: Record<string, string>, execArgv: string[] = []): Promise<{ port: number; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'servers', script), [], { env: { ...process.env, ...env }, execArgv, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    child.stdout!.on('data', (chunk: Buffer) => {
      const m = /listening (\d+)/.exec(chunk.toString());
      if (m) resolve({ port: Number(m[1]), child });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
