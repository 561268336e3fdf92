import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { verifyAuditChain } from '@app/audit';
import { Keyring } from '@app/crypto';
import { connectClient, createDataSource, withDatabaseName } from '@app/persistence';

const run = promisify(execFile);

// Binary columns that hold no sealed secret (hashes, public CRLs, data keys wrapped by the
// master key itself). Every other bytea column is sealed with the context
// "<table>.<column>", except where SHARED_CONTEXTS says otherwise: a new secret column is
// therefore checked without a change here.
const NOT_SEALED = new Set([
  'api_tokens.token_hash',
  'audit.chain_hash',
  'audit_seals.hash',
  'audit_chain.last_hash',
  'audit_checkpoints.chain_hash',
  'certificate_authorities.crl_der',
  'data_keys.wrapped',
  // Keyed fingerprints of passwords (HMACs), compared, never opened.
  'accounts.password_fingerprint',
  'password_history.fingerprint',
]);
const SHARED_CONTEXTS: Record<string, string> = {
  'password_history.password': 'accounts.password',
  'audit_chain.sealed_key': 'audit_chain.key',
};

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
  let dataSource: DataSource | undefined;
  try {
    await restore(url, dumpFile);
    dataSource = createDataSource(url, 2);
    await dataSource.initialize();
    const keyring = new Keyring(dataSource, masterKey);
    const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM data_keys');
    if (n === 0) throw new Error('The dump holds no data keys: it is not a backup of this server (or it is empty)');
    await keyring.load();
    const opened = await openEverySecret(dataSource, keyring);
    const audit = await verifyAuditChain(dataSource, keyring);
    if (!audit.ok) throw new Error(`The restored audit trail does not verify: ${audit.problem!.message}`);
    return { database, opened, auditRowsVerified: audit.checked, unsealedAuditRows: audit.unsealed };
  } finally {
    await dataSource?.destroy();
    if (!keep) await adminQuery(admin, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

async function openEverySecret(dataSource: DataSource, keyring: Keyring): Promise<Record<string, number>> {
  const columns: { t: string; c: string }[] = await dataSource.query(
    `SELECT table_name AS t, column_name AS c FROM information_schema.columns
     WHERE table_schema = 'public' AND data_type = 'bytea' ORDER BY 1, 2`,
  );
  const opened: Record<string, number> = {};
  for (const { t, c } of columns) {
    const name = `${t}.${c}`;
    if (NOT_SEALED.has(name)) continue;
    const context = SHARED_CONTEXTS[name] ?? name;
    opened[name] = 0;
    const rows: { id: unknown; v: Buffer }[] = await dataSource.query(`SELECT ctid::text AS id, "${c}" AS v FROM "${t}" WHERE "${c}" IS NOT NULL`);
    for (const row of rows) {
      try {
        await keyring.open(row.v, context);
      } catch (error) {
        throw new Error(`${name} (row ${String(row.id)}) does not decrypt with this master key: ${(error as Error).message}`);
      }
      opened[name]++;
    }
  }
  return opened;
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
