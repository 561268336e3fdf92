import { DataSource, DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from '../../../migrations';
import { ListenedClient } from './listened-client';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export interface DatabaseTimeouts {
  /** Longest wait for a connection (pool slot or new connection), ms: a database that is away fails fast. */
  connectTimeoutMs?: number;
  /** PostgreSQL's statement_timeout, ms (0 or unset: none, as for the admin CLI). */
  statementTimeoutMs?: number;
}

/** The one DataSource definition, used by both services, the admin CLI and the tests. */
export function dataSourceOptions(url: string, poolSize = 20, timeouts: DatabaseTimeouts = {}): DataSourceOptions {
  const { connectTimeoutMs = 5000, statementTimeoutMs = 0 } = timeouts;
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsTransactionMode: 'each',
    connectTimeoutMS: connectTimeoutMs,
    extra: {
      // Every pooled client keeps an 'error' listener (see ListenedClient).
      Client: ListenedClient,
      max: poolSize,
      application_name: 'credential-vault',
      // A connection whose peer vanished without a word (host down, cable cut) is noticed.
      keepAlive: true,
      // No JIT: the visibility predicate's per-row sub-plans give lists estimated costs far
      // above jit_above_cost, and compiling took longer (~400 ms) than running the query.
      options: '-c jit=off',
      ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    },
  };
}

export function createDataSource(url: string, poolSize?: number): DataSource {
  return new DataSource(dataSourceOptions(url, poolSize));
}
