import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { promisify } from 'node:util';
import { proveRestored } from '@app/backup';
import { connectClient, withDatabaseName } from '@app/persistence';

const run = promisify(execFile);

export interface RestoreReport {
  database: string;
  /** Sealed values opened with the master key, per column. */
  opened: Record<string, number>;
  auditRowsVerified: number;
  unsealedAuditRows: number;
}

/**
 * Restores a pg_dump (custom or plain format) into a new database on the server of
 * `serverUrl` and proves it usable: the master key opens its data keys, every sealed value
 * in every table decrypts, and the audit hash chain verifies. The scratch database is
 * dropped afterwards unless `keep`. Throws, naming the first problem, otherwise.
 */
export async function verifyRestore(serverUrl: string, dumpFile: string, masterKey: Buffer, keep = false): Promise<RestoreReport> {
  const database = `verify_restore_${randomBytes(4).toString('hex')}`;
  const admin = withDatabase(serverUrl, 'postgres');
  await adminQuery(admin, `CREATE DATABASE ${database}`);
  const url = withDatabase(serverUrl, database);
  try {
    await restore(url, dumpFile);
    return { database, ...(await proveRestored(url, masterKey)) };
  } finally {
    if (!keep) await adminQuery(admin, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

async function restore(url: string, dumpFile: string): Promise<void> {
  const custom = readMagic(dumpFile) === 'PGDMP';
  const args = custom ? ['--no-owner', '--no-privileges', '--exit-on-error', '-d', url, dumpFile] : ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', dumpFile];
  try {
    await run(custom ? 'pg_restore' : 'psql', args, { maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`Restoring ${dumpFile} failed: ${stderr.trim().split('\n').slice(-3).join(' ') || (error as Error).message}`);
  }
}

function readMagic(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(5);
    readSync(fd, buffer, 0, 5, 0);
    return buffer.toString('latin1');
  } finally {
    closeSync(fd);
  }
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = await connectClient(url);
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// Every host of a multi-host URL kept: psql and pg_restore (libpq) choose among them themselves.
const withDatabase = withDatabaseName;
