import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { connectClient, startEmbeddedPostgres, withDatabaseName } from '@app/persistence';

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
  // A multi-host DATABASE_URL (the HA pair) works here too: the database is made on its leader.
  const admin = await connectClient(serverUrl);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabaseName(serverUrl, name),
    async drop() {
      const c = await connectClient(serverUrl!);
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      await stopEmbedded?.();
    },
  };
}

/**
 * Starts a server script (compiled, in dist/bench/servers) and waits for "listening <port>".
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of it there when it stops.
 */
export function startServer(script: string, env: Record<string, string>): Promise<{ port: number; child: ChildProcess }> {
  const execArgv = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
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

/** CPU ticks so far (utime + stime) of a program and of each PostgreSQL backend serving `watcher`'s database. */
export async function cpuTicks(watcher: Client, pid: number): Promise<{ node: number; pg: Map<number, number> }> {
  const { rows } = await watcher.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  return { node: processTicks(pid), pg: new Map(rows.map((r: { pid: number }) => [r.pid, processTicks(r.pid)])) };
}

/** Milliseconds of CPU between two samples: the program's, and its backends' (one started in between counts whole). */
export function cpuMs(before: { node: number; pg: Map<number, number> }, after: { node: number; pg: Map<number, number> }): { node: number; pg: number } {
  let pg = 0;
  for (const [pid, t] of after.pg) pg += t - (before.pg.get(pid) ?? 0);
  return { node: (after.node - before.node) * CLOCK_TICK_MS, pg: pg * CLOCK_TICK_MS };
}

const CLOCK_TICK_MS = 10; // USER_HZ = 100 on Linux

function processTicks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // exited
  }
}

/** The middle value (the upper one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A ratio measured in one or more rounds (BENCH_ROUNDS): its median, and each round's value when there are several. */
export function roundsRatio(values: number[]): string {
  return `${median(values).toFixed(2)}${values.length > 1 ? ` (median; rounds ${values.map((v) => v.toFixed(2)).join(', ')})` : ''}`;
}
