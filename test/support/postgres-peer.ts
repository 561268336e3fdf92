import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { selfSignedLoopback } from './peer-tls';
import { freePort } from './free-port';

const run = promisify(execFile);

/**
 * A PostgreSQL server that checks passwords, for the connector tests: the machine's server
 * trusts every loopback login, so a stored password could never be shown out of sync there.
 * The system's initdb and pg_ctl, run as the postgres user, in a temporary folder: SCRAM
 * over TCP, TLS on with a self-signed certificate, trust on its own socket for the fixture.
 */
export interface PostgresPeerFixture {
  host: string;
  port: number;
  certPem: string;
  /** The superuser over the server's own socket. */
  root(): Promise<Client>;
  stop(): Promise<void>;
}

export async function startPostgresPeer(): Promise<PostgresPeerFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'vault-pgpeer-'));
  const data = join(dir, 'data');
  const bin = postgresBin();
  const owner = { uid: id('-u'), gid: id('-g') };
  chmodSync(dir, 0o700);
  chownSync(dir, owner.uid, owner.gid);
  const cert = selfSignedLoopback(dir);
  for (const file of [cert.certFile, cert.keyFile]) chownSync(file, owner.uid, owner.gid);
  chmodSync(cert.keyFile, 0o600);
  await as(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c max_connections=200',
    '-c ssl=on',
    `-c ssl_cert_file=${cert.certFile}`,
    `-c ssl_key_file=${cert.keyFile}`,
  ].join(' ');
  await as(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  const root = async () => {
    const client = new Client({ host: dir, port, user: 'postgres', database: 'postgres' });
    await client.connect();
    return client;
  };
  return {
    host: '127.0.0.1',
    port,
    certPem: cert.certPem,
    root,
    async stop() {
      await as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function as(file: string, args: string[]) {
  return process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
}

function postgresBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) throw new Error('No PostgreSQL server binaries under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${versions[versions.length - 1]}/bin`;
}

function id(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
}
