import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection, type Connection } from 'mysql2/promise';
import { selfSignedLoopback } from './peer-tls';
import { freePort } from './free-port';

const run = promisify(execFile);

/**
 * A MariaDB server of the test's own: mariadb-install-db into a temporary datadir, mariadbd
 * on a free loopback port with a self-signed TLS certificate, run as the mysql user. Never
 * touches the machine's own server (which may or may not be there).
 */
export interface MariadbFixture {
  host: string;
  port: number;
  certPem: string;
  /** Root over the server's own socket (no password). */
  root(): Promise<Connection>;
  stop(): Promise<void>;
}

export async function startMariadb(): Promise<MariadbFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'vault-mariadb-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'mysqld.sock');
  const cert = selfSignedLoopback(dir);
  const owner = await ids('mysql');
  chownSync(dir, owner.uid, owner.gid);
  await run('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--user=mysql', '--auth-root-authentication-method=normal', '--skip-test-db'], { timeout: 120_000 });
  const port = await freePort();
  const child: ChildProcess = spawn(
    'mariadbd',
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      '--user=mysql',
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      `--ssl-cert=${cert.certFile}`,
      `--ssl-key=${cert.keyFile}`,
      '--skip-name-resolve',
      '--skip-log-bin',
      '--innodb-buffer-pool-size=16M',
      '--max-connections=300',
      `--log-error=${join(dir, 'error.log')}`,
    ],
    { stdio: 'ignore' },
  );
  const root = () => createConnection({ socketPath: socket, user: 'root' });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await (await root()).end();
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`mariadbd did not start: ${(error as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    host: '127.0.0.1',
    port,
    certPem: cert.certPem,
    root,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function ids(user: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', user]), run('id', ['-g', user])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
