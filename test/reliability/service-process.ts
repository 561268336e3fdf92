import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { rawRequest } from '../support/raw-http';
import { eventually } from './load';

const ROOT = join(__dirname, '..', '..');

/**
 * One vault instance in a child process, started from the sources exactly as production
 * starts it (apps/vault/src/main.ts), so that a test can SIGKILL it.
 */
export class ServiceProcess {
  private child?: ChildProcess;
  private output = '';

  constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.output = '';
    const child = spawn(process.execPath, ['-r', join(__dirname, 'swc-register.js'), join(ROOT, 'apps/vault/src/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, TLS_MODE: 'off', BIND_ADDRESS: '127.0.0.1', LOG_LEVEL: 'warn', ...this.env, VAULT_PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    const healthy = await eventually(async () => {
      if (hasExited(child)) throw new Error('exited');
      return (await rawRequest(this.url, { method: 'GET', path: '/health' }, 5000)).status === 200;
    }, 120_000);
    if (!healthy) throw new Error(`vault instance on ${this.port} did not start:\n${this.output.slice(-3000)}`);
  }

  /** kill -9: no shutdown hook runs, connections to PostgreSQL just drop. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || hasExited(child)) return;
    await signal(child, 'SIGKILL');
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || hasExited(child)) return;
    await signal(child, 'SIGTERM');
  }

  /** Whether the process is still alive (it neither exited nor was killed). */
  get running(): boolean {
    return !!this.child && !hasExited(this.child);
  }

  get log(): string {
    return this.output;
  }
}

// A process ended by a signal has signalCode set and exitCode null.
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function signal(child: ChildProcess, name: NodeJS.Signals): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(child.pid!, name);
  let timer: NodeJS.Timeout | undefined;
  const gone = await Promise.race([exited.then(() => true), new Promise((r) => (timer = setTimeout(() => r(false), 15_000)))]);
  clearTimeout(timer);
  if (!gone) throw new Error(`vault instance ${child.pid} did not exit on ${name}`);
}
