import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres } from '../../libs/persistence/src/embedded';
import { runMigrations } from '../../libs/persistence/src/migrate';

// One migrated template database per jest run; each e2e file clones its own copy
// (CREATE DATABASE ... TEMPLATE is a file copy, far faster than migrating again).
// Names are unique per run so that parallel runs on one server never collide.
export default async function globalSetup(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const dir = `${__dirname}/../../.test-db`;
    const embedded = await startEmbeddedPostgres(dir, 0);
    (globalThis as Record<string, unknown>).__embeddedPostgres = embedded;
    adminUrl = embedded.url;
  }
  const template = `vt_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  await runMigrations(withDatabase(adminUrl, template));
  process.env.TEST_ADMIN_URL = adminUrl;
  process.env.TEST_TEMPLATE_DB = template;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
