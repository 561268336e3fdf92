import { createHash, Hash } from 'node:crypto';
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { finished } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { ClientBase } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

/*
 * A backup file: gzip of
 *
 *   CREDVAULT-BACKUP 1
 *   HEADER {"schema": <last migration>, "migrations": n, "createdAt": ..., "server": ...}
 *   TABLE <name> ["col", ...]
 *   <rows in COPY text format, one per line>
 *   \.
 *   ... (every table of the schema, in name order)
 *   SEQUENCES [{"name", "value", "called"}]
 *   END {"rows": {table: n}}
 *   SHA256 <hex of every byte above>
 *
 * COPY's text format (not pg_dump) is read and written by the driver over the connection the
 * server already has, so a backup needs no client tool whose major must match the server's
 * (the embedded PostgreSQL 18 ships none, Debian's pg_dump 15 refuses it). Every row is one
 * line (COPY escapes newlines), so a reader streams it and never holds a table in memory.
 * The master key is never in the file: only the database, whose secrets it seals.
 */
const MAGIC = 'CREDVAULT-BACKUP 1';
const END_OF_DATA = '\\.';

export interface BackupHeader {
  schema: string;
  migrations: number;
  createdAt: string;
  server: string;
}

export interface BackupSummary {
  header: BackupHeader;
  rows: Record<string, number>;
  sequences: { name: string; value: string; called: boolean }[];
  sha256: string;
  bytes: number;
}

export class BackupFileError extends Error {}

/**
 * The tables a backup holds: every table of the public schema but TypeORM's migration list. A
 * partitioned table is read (and loaded) through its parent, never its partitions again.
 */
async function tablesOf(client: ClientBase): Promise<{ name: string; columns: string[] }[]> {
  const { rows } = await client.query(
    `SELECT c.relname::text AS name, array_agg(a.attname::text ORDER BY a.attnum) AS columns
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> 'migrations'
     GROUP BY c.relname ORDER BY c.relname`,
  );
  return rows;
}

async function sequencesOf(client: ClientBase): Promise<string[]> {
  const { rows } = await client.query(`SELECT sequencename AS name FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`);
  return rows.map((r: { name: string }) => r.name);
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Writes text to the gzip stream, hashing exactly what goes in, with backpressure. */
class HashedGzipFile {
  private readonly hash: Hash = createHash('sha256');
  private readonly gzip = createGzip({ level: 6 });
  private readonly out: ReturnType<typeof createWriteStream>;
  bytes = 0;

  constructor(path: string) {
    this.out = createWriteStream(path, { mode: 0o600 });
    this.gzip.pipe(this.out);
  }

  async write(chunk: Buffer | string): Promise<void> {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.hash.update(data);
    this.bytes += data.length;
    if (!this.gzip.write(data)) await new Promise((resolve) => this.gzip.once('drain', resolve));
  }

  /** A writable for COPY TO: every chunk hashed and compressed. */
  sink(): Writable {
    return new Writable({ write: (chunk: Buffer, _enc, done) => void this.write(chunk).then(() => done(), done) });
  }

  async close(): Promise<string> {
    const digest = this.hash.digest('hex');
    this.gzip.end(`SHA256 ${digest}\n`);
    await finished(this.out);
    return digest;
  }

  destroy(): void {
    this.gzip.destroy();
    this.out.destroy();
  }
}

/**
 * A consistent snapshot of the whole database (one REPEATABLE READ, READ ONLY transaction:
 * every table as of one instant, while the services keep writing) into `file`, written
 * beside it and renamed into place only when complete. Rows are copied in primary-key order.
 */
export async function writeBackup(client: ClientBase, file: string): Promise<BackupSummary> {
  const partial = `${file}.partial`;
  const out = new HashedGzipFile(partial);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: migrations } = await client.query('SELECT name FROM migrations ORDER BY id');
    if (migrations.length === 0) throw new BackupFileError('The database has no schema: nothing to back up');
    const { rows: [{ version }] } = await client.query('SHOW server_version');
    const header: BackupHeader = { schema: migrations[migrations.length - 1].name, migrations: migrations.length, createdAt: new Date().toISOString(), server: version };
    await out.write(`${MAGIC}\nHEADER ${JSON.stringify(header)}\n`);
    const counts: Record<string, number> = {};
    for (const table of await tablesOf(client)) {
      await out.write(`TABLE ${table.name} ${JSON.stringify(table.columns)}\n`);
      const key = await primaryKeyOf(client, table.name);
      const order = key.length ? ` ORDER BY ${key.map(quoteIdent).join(', ')}` : '';
      const select = `SELECT ${table.columns.map(quoteIdent).join(', ')} FROM ${quoteIdent(table.name)}${order}`;
      const stream = client.query(copyTo(`COPY (${select}) TO STDOUT`));
      const sink = out.sink();
      await new Promise<void>((resolve, reject) => {
        stream.on('error', reject);
        sink.on('error', reject);
        sink.on('finish', resolve);
        stream.pipe(sink);
      });
      counts[table.name] = Number(stream.rowCount ?? 0);
      await out.write(`${END_OF_DATA}\n`);
    }
    const sequences = [];
    for (const name of await sequencesOf(client)) {
      const { rows: [s] } = await client.query(`SELECT last_value::text AS value, is_called AS called FROM ${quoteIdent(name)}`);
      sequences.push({ name, value: s.value, called: s.called });
    }
    await out.write(`SEQUENCES ${JSON.stringify(sequences)}\nEND ${JSON.stringify({ rows: counts })}\n`);
    await client.query('COMMIT');
    const bytes = out.bytes;
    const sha256 = await out.close();
    renameSync(partial, file);
    return { header, rows: counts, sequences, sha256, bytes };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    out.destroy();
    rmSync(partial, { force: true });
    throw error;
  }
}

async function primaryKeyOf(client: ClientBase, table: string): Promise<string[]> {
  const { rows } = await client.query(
    `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
     WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`,
    [quoteIdent(table)],
  );
  return rows.map((r: { name: string }) => r.name);
}

/**
 * The file's lines, uncompressed. A missing or corrupt file rejects (a readline interface
 * would wait forever on an input that failed).
 */
async function* linesOf(file: string): AsyncGenerator<string> {
  const raw = createReadStream(file);
  const gunzip = createGunzip();
  raw.on('error', (error) => gunzip.destroy(error));
  raw.pipe(gunzip);
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of gunzip) {
    rest += decoder.write(chunk as Buffer);
    let newline = rest.indexOf('\n');
    let from = 0;
    while (newline !== -1) {
      yield rest.slice(from, newline);
      from = newline + 1;
      newline = rest.indexOf('\n', from);
    }
    rest = rest.slice(from);
  }
  rest += decoder.end();
  if (rest) yield rest;
}

/**
 * Reads the whole file once: it must be a backup, complete, and its checksum must match what
 * it holds. Returns its summary. Nothing is written anywhere.
 */
export async function checkBackupFile(file: string): Promise<BackupSummary> {
  const hash = createHash('sha256');
  let bytes = 0;
  let header: BackupHeader | undefined;
  let end: { rows: Record<string, number> } | undefined;
  let sequences: BackupSummary['sequences'] = [];
  let trailer: string | undefined;
  let first = true;
  try {
    for await (const line of linesOf(file)) {
      if (trailer !== undefined) throw new BackupFileError('data after the checksum line');
      if (line.startsWith('SHA256 ') && end) {
        trailer = line.slice(7);
        continue;
      }
      if (first && line !== MAGIC) throw new BackupFileError('it is not a backup of this server (no CREDVAULT-BACKUP header)');
      first = false;
      if (line.startsWith('HEADER ') && !header) header = JSON.parse(line.slice(7));
      else if (line.startsWith('SEQUENCES ')) sequences = JSON.parse(line.slice(10));
      else if (line.startsWith('END ')) end = JSON.parse(line.slice(4));
      hash.update(line + '\n');
      bytes += Buffer.byteLength(line) + 1;
    }
  } catch (error) {
    if (error instanceof BackupFileError) throw new BackupFileError(`${file}: ${error.message}`);
    throw new BackupFileError(`${file} cannot be read as a backup: ${(error as Error).message}`);
  }
  if (!header || !end || trailer === undefined) throw new BackupFileError(`${file} is incomplete: it ends before its checksum`);
  const sha256 = hash.digest('hex');
  if (sha256 !== trailer) throw new BackupFileError(`${file} is damaged: its checksum does not match what it holds`);
  return { header, rows: end.rows, sequences, sha256, bytes };
}

/**
 * Loads a checked backup into the (migrated, emptied) schema on `client`, inside the caller's
 * transaction: every table's rows by COPY FROM, then every sequence where it stood. Row counts
 * are compared with the file's own.
 */
export async function loadBackup(client: ClientBase, file: string, summary: BackupSummary): Promise<void> {
  const lines = linesOf(file);
  const next = async (): Promise<string | undefined> => {
    const r = await lines.next();
    return r.done ? undefined : r.value;
  };
  const known = new Set((await tablesOf(client)).map((t) => t.name));
  for (let line = await next(); line !== undefined; line = await next()) {
    if (!line.startsWith('TABLE ')) continue;
    const space = line.indexOf(' ', 6);
    const table = line.slice(6, space);
    const columns: string[] = JSON.parse(line.slice(space + 1));
    if (!known.has(table)) throw new BackupFileError(`The backup holds table ${table}, which this schema does not have`);
    const stream = client.query(copyFrom(`COPY ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) FROM STDIN`));
    const done = new Promise<void>((resolve, reject) => {
      stream.on('error', reject);
      stream.on('finish', resolve);
    });
    let rows = 0;
    for (let row = await next(); row !== END_OF_DATA; row = await next()) {
      if (row === undefined) throw new BackupFileError(`The backup ends inside table ${table}`);
      rows++;
      if (!stream.write(`${row}\n`)) await new Promise((resolve) => stream.once('drain', resolve));
    }
    stream.end();
    await done;
    if (rows !== summary.rows[table]) throw new BackupFileError(`Table ${table}: ${rows} rows read, the backup says ${summary.rows[table]}`);
  }
  for (const s of summary.sequences) {
    await client.query('SELECT setval($1::regclass, $2::bigint, $3)', [quoteIdent(s.name), s.value, s.called]);
  }
}

