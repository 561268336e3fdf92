import { Pool, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';

/** The pg pool under TypeORM, for hot paths that use named (prepared) statements. */
export function pgPool(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}

/**
 * Runs a named prepared statement on the shared pool: PostgreSQL parses and plans it
 * once per connection, which TypeORM's repository API does not do.
 */
export async function prepared<T extends QueryResultRow>(
  pool: Pool,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const result = await pool.query<T>({ name, text, values });
  return result.rows;
}
