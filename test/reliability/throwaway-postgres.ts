import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { runMigrations } from '@app/persistence';
import { freePort } from '../support/free-port';

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own (the system's initdb / pg_ctl, run as the postgres
 * user, files in a temporary folder) that the test may stop and start again on the same
 * port, holding one migrated database. Never touches the shared server.
 */
export class ThrowawayPostgres {
  readonly dir = mkdtempSync(join(tmpdir(), 'vault-pg-'));
  private readonly data = join(this.dir, 'data');
  private readonly bin = postgresBin();
  private port = 0;
  url = '';

  async start(): Promise<void> {
    if (!this.port) {
      this.port = await freePort();
      chmodSync(this.dir, 0o700);
      if (isRoot()) chownSync(this.dir, uid('-u'), uid('-g'));
      await this.as(join(this.bin, 'initdb'), ['-D', this.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    }
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
    await this.as(join(this.bin, 'pg_ctl'), ['-D', this.data, '-o', options, '-l', join(this.dir, 'log'), '-w', '-t', '60', 'start']);
    if (!this.url) {
      const admin = `postgres://postgres@127.0.0.1:${this.port}/postgres`;
      const client = new Client({ connectionString: admin });
      await client.connect();
      await client.query('CREATE DATABASE vault');
      await client.end();
      this.url = `postgres://postgres@127.0.0.1:${this.port}/vault`;
      await runMigrations(this.url);
    }
  }

  /** Stops the server: `fast` ends every session (as an operator's restart does), `immediate` as a crash. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.as(join(this.bin, 'pg_ctl'), ['-D', this.data, '-m', mode, '-w', '-t', '60', 'stop']).catch(() => undefined);
  }

  async destroy(): Promise<void> {
    await this.stop('immediate');
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs a PostgreSQL tool as the postgres user (it refuses to run as root). */
  private as(file: string, args: string[]) {
    return isRoot() ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
  }
}

function postgresBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) throw new Error('No PostgreSQL server binaries under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${versions[versions.length - 1]}/bin`;
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function uid(flag: '-u' | '-g'): number {
  return Number(require('node:child_process').execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
}

