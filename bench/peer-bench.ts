import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '@app/persistence';
import type { ConnectorKind } from '@app/connectors';
import { useHostKeyPins } from '@app/ssh';
import { PEER_KINDS, startPeer, type ConnectorPeer } from '../test/support/connector-peers';
import { ServiceProcess } from '../test/reliability/service-process';
import { freePort } from '../test/support/free-port';

// The set-up every benchmark against a real peer repeats (bench/connectors-run.ts,
// rotation-run.ts, directory-run.ts): a database of its own, migrated; vault instances in
// child processes on it; the API as its first administrator; a peer's accounts in the vault.

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ApiOperation {
  result: { status: string; message: string };
  Details?: Record<string, unknown>;
}

export interface BenchVault {
  instances: ServiceProcess[];
  /** The first instance's URL. */
  url: string;
  token: string;
  /** A client on the vault's own database. */
  db: Client;
  /** Calls a vault operation as the first administrator; a Failed answer throws. */
  call(method: string, path: string, details?: Record<string, unknown>): Promise<ApiOperation>;
  /** The same, answering a Failed operation instead of throwing. */
  attempt(method: string, path: string, details?: Record<string, unknown>): Promise<ApiOperation>;
  /** A resource of the peer's type, its administrator the peer's; returns its id. */
  peerResource(peer: ConnectorPeer, name: string): Promise<number>;
  /** `count` accounts made on the peer and added to resource `rid`; returns their ids. */
  peerAccounts(peer: ConnectorPeer, rid: number, count: number, prefix: string): Promise<number[]>;
  stop(): Promise<void>;
}

export async function startBenchVault(name: string, env: Record<string, string> = {}, count = 1): Promise<BenchVault> {
  const database = `bench_${name}_${process.pid}`.replace(/[^a-z0-9_]/g, '_');
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = ADMIN_URL.replace(/\/[^/]*$/, `/${database}`);
  await runMigrations(url);
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const instances: ServiceProcess[] = [];
  for (let i = 0; i < count; i++) {
    const instance = new ServiceProcess(await freePort(), { DATABASE_URL: url, DATA_DIR: dataDir, DB_POOL_SIZE: '20', VERIFY_INTERVAL_MS: '3600000', ...env });
    await instance.start();
    instances.push(instance);
  }
  const db = new Client({ connectionString: url });
  await db.connect();
  const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
  const attempt = async (method: string, path: string, details?: Record<string, unknown>): Promise<ApiOperation> => {
    const res = await fetch(`${instances[0].url}/restapi/json/v1${path}`, {
      method,
      headers: { AUTHTOKEN: token, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: details ? `INPUT_DATA=${encodeURIComponent(JSON.stringify({ operation: { Details: details } }))}` : undefined,
    });
    return ((await res.json()) as { operation: ApiOperation }).operation;
  };
  const call = async (method: string, path: string, details?: Record<string, unknown>): Promise<ApiOperation> => {
    const op = await attempt(method, path, details);
    if (op.result.status !== 'Success') throw new Error(`${method} ${path}: ${op.result.message}`);
    return op;
  };
  return {
    instances,
    url: instances[0].url,
    token,
    db,
    call,
    attempt,
    async peerResource(peer, resourceName) {
      await call('POST', '/resources', { RESOURCENAME: resourceName, RESOURCETYPE: peer.resourceType, DNSNAME: peer.target.host, ACCOUNTNAME: peer.admin.username, PASSWORD: peer.admin.password });
      return (await db.query('SELECT id FROM resources WHERE name = $1', [resourceName])).rows[0].id as number;
    },
    async peerAccounts(peer, rid, n, prefix) {
      const list = [];
      for (let i = 0; i < n; i++) {
        const password = `Bench-${prefix}-${i}-Xy9!`;
        // SSH accounts are local users named by useradd's rules: the peer names them.
        list.push({ ACCOUNTNAME: await peer.createAccount(password, peer.kind === 'ssh' ? undefined : `${prefix}_${i}`), PASSWORD: password });
      }
      for (let i = 0; i < list.length; i += 100) await call('POST', `/resources/${rid}/accounts`, { ACCOUNTLIST: list.slice(i, i + 100) });
      const names = list.map((a) => a.ACCOUNTNAME);
      return (await db.query('SELECT id FROM accounts WHERE resource_id = $1 AND name = ANY($2) ORDER BY id', [rid, names])).rows.map((r) => r.id as number);
    },
    async stop() {
      await db.end().catch(() => undefined);
      for (const instance of instances) await instance.stop();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}

/**
 * Runs `bench` once per connector kind (BENCH_KINDS, or every kind with a peer), each against
 * its own peer and its own vault (databases named after `name`), then prints `title` and the
 * figures as a table. The peers are fixtures on loopback: their host keys are not pinned.
 */
export function benchEveryKind<T extends object>(
  setup: { name: string; title: string; env?: Record<string, string>; instances?: number },
  bench: (kind: ConnectorKind, peer: ConnectorPeer, vault: BenchVault) => Promise<T>,
): void {
  const run = async (): Promise<void> => {
    useHostKeyPins({ verify: async () => undefined });
    const kinds = (process.env.BENCH_KINDS?.split(',') as ConnectorKind[] | undefined) ?? PEER_KINDS;
    const rows: T[] = [];
    for (const kind of kinds) {
      const peer = await startPeer(kind);
      const vault = await startBenchVault(`${setup.name}_${kind}`, setup.env, setup.instances);
      try {
        rows.push(await bench(kind, peer, vault));
      } finally {
        await vault.stop();
        await peer.stop();
      }
    }
    console.log(setup.title);
    console.table(rows);
  };
  run().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
