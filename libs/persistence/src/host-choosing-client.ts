import { Client, ClientConfig } from 'pg';
import { DatabaseHost, DatabaseTarget, TargetSessionAttrs } from './database-url';
import { ListenedClient } from './listened-client';

/** Client options with the host list parsed from a multi-host DATABASE_URL (see dataSourceOptions). */
export interface HostChoosingConfig extends ClientConfig {
  databaseTarget: DatabaseTarget;
}

type Statuses = Map<string, string>;

const PROBE_NAME = 'credential-vault host probe';

function escapeLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * A pool client that connects as libpq does with several hosts: tries them in order and keeps
 * the first whose session satisfies target_session_attrs. PostgreSQL 14+ reports
 * in_hot_standby and default_transaction_read_only when a session starts, so the check costs
 * no query; older servers are asked. A host that refuses, or is not what is wanted, is
 * probed with a throwaway connection (a pg client cannot connect twice), and this client
 * then connects to the chosen host; the last host is tried directly. The chosen session is
 * checked again, so a role that changed in between is never kept.
 */
export class HostChoosingClient extends ListenedClient {
  private readonly target: DatabaseTarget;
  private readonly options: HostChoosingConfig;

  constructor(config: HostChoosingConfig) {
    super(config);
    this.options = config;
    this.target = config.databaseTarget;
  }

  connect(): Promise<Client>;
  connect(callback: ((err: Error) => void) | ((err: null, c: Client) => void)): void;
  // pg's overloads, loosened: the pool calls connect(callback), everything else connect().
  connect(callback?: (err: any, c?: any) => void): Promise<Client> | void {
    const done = this.choose().then(() => this as Client);
    if (!callback) return done;
    done.then((client) => callback(null, client), (error: Error) => callback(error));
  }

  private async choose(): Promise<void> {
    const { hosts, targetSessionAttrs: attrs } = this.target;
    const failures: string[] = [];
    let chosen = hosts[hosts.length - 1];
    for (const host of hosts.slice(0, -1)) {
      const verdict = await probe(this.options, host, attrs);
      if (verdict === true) {
        chosen = host;
        break;
      }
      failures.push(`${host.host}:${host.port} ${verdict}`);
    }
    const self = this as unknown as {
      host: string;
      port: number;
      connectionParameters: { host: string; port: number; application_name?: string };
      connection: NodeJS.EventEmitter;
    };
    self.host = self.connectionParameters.host = chosen.host;
    self.port = self.connectionParameters.port = chosen.port;
    // Named as a probe until judged: a session of the service never shows on a standby.
    const name = self.connectionParameters.application_name;
    self.connectionParameters.application_name = PROBE_NAME;
    const statuses = watchStatuses(self.connection);
    await super.connect();
    const verdict = await judge(this, statuses, attrs);
    if (verdict === true) {
      if (name) await this.query(`SET application_name = ${escapeLiteral(name)}`);
      return;
    }
    failures.push(`${chosen.host}:${chosen.port} ${verdict}`);
    await this.end().catch(() => undefined);
    throw noHostError(attrs, failures);
  }
}

/** true when the host takes a session of the wanted kind, else why not. */
async function probe(options: HostChoosingConfig, host: DatabaseHost, attrs: TargetSessionAttrs): Promise<true | string> {
  const { databaseTarget: _, Client: __, ...rest } = options as HostChoosingConfig & { Client?: unknown };
  const client = new Client({ ...rest, connectionString: host.url, application_name: PROBE_NAME });
  client.on('error', () => undefined);
  const statuses = watchStatuses((client as unknown as { connection: NodeJS.EventEmitter }).connection);
  try {
    await client.connect();
    return await judge(client, statuses, attrs);
  } catch (error) {
    return `unreachable (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function judge(client: Client, statuses: Statuses, attrs: TargetSessionAttrs): Promise<true | string> {
  if (attrs === 'any') return true;
  const standby = await setting(client, statuses, 'in_hot_standby', 'SELECT CASE WHEN pg_is_in_recovery() THEN \'on\' ELSE \'off\' END AS v');
  if (standby === 'on') return 'is a standby';
  if (attrs === 'primary') return true;
  const readOnly = await setting(client, statuses, 'default_transaction_read_only', 'SHOW transaction_read_only');
  return readOnly === 'on' ? 'is read-only' : true;
}

async function setting(client: Client, statuses: Statuses, name: string, sql: string): Promise<string> {
  const reported = statuses.get(name);
  if (reported !== undefined) return reported;
  const { rows } = await client.query({ text: sql, rowMode: 'array' });
  return String(rows[0][0]);
}

function watchStatuses(connection: NodeJS.EventEmitter): Statuses {
  const statuses: Statuses = new Map();
  connection.on('parameterStatus', (m: { parameterName: string; parameterValue: string }) => statuses.set(m.parameterName, m.parameterValue));
  return statuses;
}

/** SQLSTATE 08001 (the client could not establish a connection), as libpq and JDBC report it. */
function noHostError(attrs: TargetSessionAttrs, failures: string[]): Error {
  const error = new Error(`No database host accepts a ${attrs} session: ${failures.join('; ')}`) as Error & { code: string };
  error.code = '08001';
  return error;
}
