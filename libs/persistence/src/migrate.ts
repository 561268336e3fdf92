import { MIGRATIONS } from '../../../migrations';
import { createDataSource } from './data-source';

// Any number of instances may start at once; one advisory lock serialises migration.
const MIGRATION_LOCK = 727265650;

export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = createDataSource(url, 2);
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
    await dataSource.destroy();
  }
}

/** The schema this code makes: the name of its last migration (a backup records its own). */
export function currentSchema(): string {
  const Last = MIGRATIONS[MIGRATIONS.length - 1] as new () => { name: string };
  return new Last().name;
}
