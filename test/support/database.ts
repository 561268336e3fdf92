import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataSource } from '@app/persistence';
import { ensureFirstAdmin, FirstAdmin } from '@app/server';
import { withDatabase } from './global-setup';

/** A fresh, migrated database for one test file, cloned from the run's template. */
export async function createTestDatabase(): Promise<string> {
  return cloneOf(process.env.TEST_TEMPLATE_DB!);
}

/**
 * A fresh database as a first start leaves it (organisation Default, administrator `admin`), and
 * that administrator's token and password. The first start's work, its bcrypt hash above all
 * (a quarter of a CPU-second), is done once per run, in a second template, by the same code.
 */
export async function createStartedTestDatabase(): Promise<{ url: string; firstAdmin: FirstAdmin }> {
  const firstAdmin = await startedTemplate();
  return { url: await cloneOf(startedTemplateName()), firstAdmin };
}

/** Where the run's started template keeps its administrator's token and password (0600, removed by global-teardown.ts). */
function firstAdminFile(template = process.env.TEST_TEMPLATE_DB!): string {
  return join(tmpdir(), `${template}.first-admin.json`);
}

function startedTemplateName(): string {
  return `${process.env.TEST_TEMPLATE_DB}_started`;
}

async function cloneOf(template: string): Promise<string> {
  const adminUrl = process.env.TEST_ADMIN_URL!;
  const name = `${process.env.TEST_TEMPLATE_DB}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}

/** The first of the run's workers to ask makes the started template, under a lock the others wait on. */
async function startedTemplate(): Promise<FirstAdmin> {
  const file = firstAdminFile();
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const adminUrl = process.env.TEST_ADMIN_URL!;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [startedTemplateName()]);
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
    // Left by a worker that failed half-way, if any.
    await admin.query(`DROP DATABASE IF EXISTS ${startedTemplateName()}`);
    await admin.query(`CREATE DATABASE ${startedTemplateName()} TEMPLATE ${process.env.TEST_TEMPLATE_DB}`);
    const dataSource = createDataSource(withDatabase(adminUrl, startedTemplateName()), 1);
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-first-start-'));
    let firstAdmin: FirstAdmin | undefined;
    try {
      await dataSource.initialize();
      firstAdmin = await ensureFirstAdmin(dataSource, dataDir);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
    if (!firstAdmin) throw new Error('the started template already had an organisation');
    // Written once no connection holds the template (a clone fails while one does), and renamed
    // into place, so that a worker never reads it half-written.
    writeFileSync(`${file}.part`, JSON.stringify(firstAdmin), { mode: 0o600 });
    renameSync(`${file}.part`, file);
    return firstAdmin;
  } finally {
    await admin.end();
  }
}
