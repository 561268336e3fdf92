import { ClientConfig } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from '../../../migrations';
import { needsHostChoice, parseDatabaseUrl } from './database-url';
import { HostChoosingClient } from './host-choosing-client';
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
    entities: ENTITIES,
    migrations: MIGRATIONS,
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsTransactionMode: 'each',
    connectTimeoutMS: connectTimeoutMs,
    ...connectionOf(url),
    extra: {
      ...connectionOf(url).extra,
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

/**
 * The URL TypeORM and pg see, and the pool's client class. Every pooled client keeps an 'error'
 * listener (ListenedClient); with several hosts (or a target_session_attrs) each new connection
 * chooses its host (HostChoosingClient), and pg is given the first host's URL, as it parses one.
 */
function connectionOf(url: string): { url: string; extra: Record<string, unknown> } {
  const target = parseDatabaseUrl(url);
  if (!needsHostChoice(target)) return { url, extra: { Client: ListenedClient } };
  return { url: target.hosts[0].url, extra: { Client: HostChoosingClient, databaseTarget: target } };
}

/** A single connected client (not pooled) for DATABASE_URL, choosing its host as the pool does. */
export async function connectClient(url: string, config: ClientConfig = {}): Promise<ListenedClient> {
  const target = parseDatabaseUrl(url);
  const client = needsHostChoice(target)
    ? new HostChoosingClient({ ...config, connectionString: target.hosts[0].url, databaseTarget: target })
    : new ListenedClient({ ...config, connectionString: url });
  await client.connect();
  return client;
}
