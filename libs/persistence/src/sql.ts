import { Pool, PoolClient, QueryResultRow } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

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

/**
 * `prepared`, with each row as an array in the statement's column order: pg then builds no
 * object keyed by column name per row (dictionary-mode objects, slow to fill on every call).
 */
export async function preparedArrays<T extends unknown[]>(pool: Pool, name: string, text: string, values: unknown[]): Promise<T[]> {
  const result = await pool.query<T>({ name, text, values, rowMode: 'array' });
  return result.rows;
}

/**
 * A named prepared statement inside a TypeORM transaction (on the transaction's own
 * connection); outside one it runs on the pool like `prepared`.
 */
export async function preparedIn<T extends QueryResultRow>(m: EntityManager, name: string, text: string, values: unknown[]): Promise<T[]> {
  const runner = m.queryRunner as { databaseConnection: PoolClient; isTransactionActive: boolean } | undefined;
  if (!runner?.isTransactionActive) return prepared<T>(pgPool(m.connection), name, text, values);
  const result = await runner.databaseConnection.query<T>({ name, text, values });
  return result.rows;
}
