import { ClientBase } from 'pg';
import { AUDIT_INSERT, AuditOperation, auditValues } from '@app/audit';
import { connectClient, currentSchema, runMigrations } from '@app/persistence';
import { BackupFileError, BackupSummary, checkBackupFile, loadBackup, quoteIdent } from './backup-file';
import { proveRestored, RestoredProof } from './prove-restored';

export interface RestoreOutcome extends RestoredProof {
  summary: BackupSummary;
}

/**
 * Restores a backup into the database at `url`, which must hold no data yet (no organisation,
 * no audit row): the file's checksum and schema are checked before anything is written, the
 * schema is made by this code's migrations, then every row is loaded in one transaction (user
 * triggers off, foreign keys checked at its end) and every secret is proved to decrypt with
 * `masterKey` and the audit chain to verify. A failed load leaves the database as it was.
 */
export async function restoreBackup(url: string, file: string, masterKey: Buffer, via: string): Promise<RestoreOutcome> {
  const summary = await checkBackupFile(file);
  const schema = currentSchema();
  if (summary.header.schema !== schema) {
    throw new BackupFileError(
      `${file} was made by another version (schema ${summary.header.schema}; this server's is ${schema}): restore it with that version, then upgrade`,
    );
  }
  await runMigrations(url);
  const client = await connectClient(url);
  try {
    const { rows: [held] } = await client.query('SELECT (SELECT count(*) FROM organizations)::int AS orgs, (SELECT count(*) FROM audit)::int AS audit');
    if (held.orgs > 0 || held.audit > 0) {
      throw new BackupFileError(`The database to restore into is not empty (${held.orgs} organisation(s), ${held.audit} audit row(s)): restore into a new, empty database`);
    }
    await client.query('BEGIN');
    try {
      await loadInto(client, file, summary);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await client.end();
  }
  const proof = await proveRestored(url, masterKey);
  const recorder = await connectClient(url);
  try {
    await recorder.query(
      AUDIT_INSERT,
      auditValues({
        category: 'User',
        operation: AuditOperation.BackupRestored,
        actor: null,
        description: `restored from a backup of ${summary.header.createdAt} (sha256 ${summary.sha256.slice(0, 16)}..., ${via})`,
      }),
    );
  } finally {
    await recorder.end();
  }
  return { summary, ...proof };
}

/**
 * Inside the caller's transaction: the tables emptied (migrations seed a few rows), user
 * triggers off (the rows they derive are in the backup), every foreign key deferred to the
 * end, the rows loaded, the keys checked, everything put back as it was.
 */
async function loadInto(client: ClientBase, file: string, summary: BackupSummary): Promise<void> {
  const { rows: tables } = await client.query(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'migrations' AND NOT c.relispartition ORDER BY 1`,
  );
  const { rows: keys } = await client.query(
    `SELECT c.conrelid::regclass::text AS tbl, c.conname AS name FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
     WHERE n.nspname = 'public' AND c.contype = 'f' AND NOT c.condeferrable AND c.conparentid = 0`,
  );
  const names = tables.map((t: { name: string }) => quoteIdent(t.name));
  for (const k of keys) await client.query(`ALTER TABLE ${k.tbl} ALTER CONSTRAINT ${quoteIdent(k.name)} DEFERRABLE INITIALLY DEFERRED`);
  await client.query('SET CONSTRAINTS ALL DEFERRED');
  for (const t of names) await client.query(`ALTER TABLE ${t} DISABLE TRIGGER USER`);
  if (names.length) await client.query(`TRUNCATE ${names.join(', ')}`);
  await loadBackup(client, file, summary);
  // The deferred key checks run here (a table with pending checks cannot be altered).
  await client.query('SET CONSTRAINTS ALL IMMEDIATE');
  for (const t of names) await client.query(`ALTER TABLE ${t} ENABLE TRIGGER USER`);
  for (const k of keys) await client.query(`ALTER TABLE ${k.tbl} ALTER CONSTRAINT ${quoteIdent(k.name)} NOT DEFERRABLE`);
}
