import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { withDatabase } from './global-setup';

/** A fresh, migrated database for one test file, cloned from the run's template. */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = process.env.TEST_ADMIN_URL!;
  const name = `${process.env.TEST_TEMPLATE_DB}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${process.env.TEST_TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}
