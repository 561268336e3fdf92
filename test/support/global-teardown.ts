import { Client } from 'pg';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Drops the template and every database cloned from it in this run.
export default async function globalTeardown(): Promise<void> {
  const adminUrl = process.env.TEST_ADMIN_URL;
  const template = process.env.TEST_TEMPLATE_DB;
  if (adminUrl && template) {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [template, `${template}\\_%`],
    );
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
    await admin.end();
    // The started template's administrator (firstAdminFile in test/support/database.ts).
    rmSync(join(tmpdir(), `${template}.first-admin.json`), { force: true });
  }
  const embedded = (globalThis as Record<string, unknown>).__embeddedPostgres as
    | { stop(): Promise<void> }
    | undefined;
  if (embedded) await embedded.stop();
}
