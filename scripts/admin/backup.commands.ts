import { resolve } from 'node:path';
import { AuditOperation, AuditWriter } from '@app/audit';
import { restoreBackup, writeBackup } from '@app/backup';
import { loadMasterKey } from '@app/crypto';
import { connectClient, withDatabaseName } from '@app/persistence';
import { optional } from './args';
import { AdminCommand } from './command';

function fileArgument(args: Record<string, string | true>, usage: string): string {
  const file = typeof args._ === 'string' ? args._ : optional(args, 'file');
  if (!file) throw new Error(`A file is required: ${usage}`);
  return resolve(file);
}

export const backupCommand: AdminCommand = {
  name: 'backup',
  usage: 'backup FILE',
  positional: 'FILE',
  summary: 'Write a consistent backup of the whole database to FILE while the services run (no master key in it; audited)',
  async run(ctx, args) {
    const file = fileArgument(args, 'npm run admin -- backup FILE');
    const client = await connectClient(ctx.databaseUrl);
    try {
      const summary = await writeBackup(client, file);
      const rows = Object.values(summary.rows).reduce((a, b) => a + b, 0);
      await new AuditWriter(ctx.dataSource).record({
        category: 'User',
        operation: AuditOperation.BackupCreated,
        actor: null,
        target: file,
        description: `${rows} rows of ${Object.keys(summary.rows).length} tables, schema ${summary.header.schema}, sha256 ${summary.sha256} (admin CLI)`,
      });
      console.log(`Backed up ${rows} rows of ${Object.keys(summary.rows).length} tables (schema ${summary.header.schema}) to ${file}.`);
      console.log(`SHA-256 of its contents: ${summary.sha256}. The master key is not in it: keep that apart.`);
    } finally {
      await client.end();
    }
  },
};

export const restoreCommand: AdminCommand = {
  name: 'restore',
  usage: 'restore FILE [--database NAME]',
  positional: 'FILE',
  summary: 'Restore a backup into the configured database, or a new database NAME on the same server, which must be empty; prove every secret decrypts and the audit chain verifies',
  async run(ctx, args) {
    const file = fileArgument(args, 'npm run admin -- restore FILE [--database NAME]');
    const name = optional(args, 'database');
    let url = ctx.databaseUrl;
    if (name) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error('--database must be a plain lower-case name (letters, digits, _)');
      const admin = await connectClient(withDatabaseName(ctx.databaseUrl, 'postgres'));
      try {
        const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (rows.length === 0) await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      url = withDatabaseName(ctx.databaseUrl, name);
    }
    const outcome = await restoreBackup(url, file, loadMasterKey(ctx.config), 'admin CLI');
    const rows = Object.values(outcome.summary.rows).reduce((a, b) => a + b, 0);
    const secrets = Object.values(outcome.opened).reduce((a, b) => a + b, 0);
    console.log(`Restored ${rows} rows (backup of ${outcome.summary.header.createdAt}, schema ${outcome.summary.header.schema})${name ? ` into database ${name}` : ''}.`);
    console.log(`Proved: ${secrets} sealed values decrypt with the master key; ${outcome.auditRowsVerified} sealed audit rows verify (${outcome.unsealedAuditRows} not sealed yet).`);
    if (name) console.log(`Point DATABASE_URL at it: ${url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}`);
  },
};
