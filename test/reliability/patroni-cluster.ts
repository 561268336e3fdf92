import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { eventually } from './load';
import { freePort } from '../support/free-port';

const run = promisify(execFile);

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dir: string;
  config: string;
  process?: ChildProcess;
}

/**
 * Two PostgreSQL nodes under Patroni with one etcd member, all on loopback ports picked free,
 * in a temporary folder, as the postgres user (PostgreSQL refuses root). Synchronous
 * replication, strict: a commit is acknowledged only once the standby has it. Timings are
 * short (ttl 10 s, loop 1 s) so a drill takes seconds, and primary_start_timeout 0 makes
 * Patroni fail over after a crash of the primary instead of restarting it in place.
 */
export class PatroniCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'vault-patroni-'));
  readonly scope = `vault-drill-${process.pid}`;
  readonly nodes: PatroniNode[] = [];
  private etcd?: ChildProcess;
  private readonly children: ChildProcess[] = [];
  private etcdPort = 0;
  private log = '';

  async start(): Promise<void> {
    chmodSync(this.dir, 0o700);
    if (isRoot()) chownSync(this.dir, postgresId('-u'), postgresId('-g'));
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    this.etcdPort = clientPort;
    const etcdDir = join(this.dir, 'etcd');
    this.etcd = this.spawnAs('etcd', [
      '--name', 'drill', '--data-dir', etcdDir,
      '--listen-client-urls', `http://127.0.0.1:${clientPort}`, '--advertise-client-urls', `http://127.0.0.1:${clientPort}`,
      '--listen-peer-urls', `http://127.0.0.1:${peerPort}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-cluster', `drill=http://127.0.0.1:${peerPort}`, '--log-level', 'warn',
    ]);
    for (const name of ['node1', 'node2']) {
      this.nodes.push({ name, pgPort: 0, restPort: 0, dir: join(this.dir, name), config: join(this.dir, `${name}.yml`) });
    }
    // node1 first, so that it bootstraps and is the first leader; node2 clones it.
    await this.launch(this.nodes[0], async () => (await this.role(this.nodes[0])) === 'primary', 'node1 did not become leader');
    await this.launch(this.nodes[1], () => this.isSynchronous(), 'node2 did not become a synchronous standby');
  }

  /**
   * A node's first start, on ports picked just before it. A port picked free can meanwhile
   * become the local port of some other test's outgoing connection (both come from the
   * ephemeral range), and Patroni exits when its REST port is taken: the node then starts again
   * on ports picked anew. node2's ports used to be picked before node1 bootstrapped, which left
   * that window open for seconds.
   */
  private async launch(node: PatroniNode, ready: () => Promise<boolean>, failure: string): Promise<void> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      node.pgPort = await freePort();
      node.restPort = await freePort();
      this.writeConfig(node);
      await this.startNode(node);
      const settled = await eventually(async () => !node.process || (await ready()), 90_000);
      if (settled && node.process) return;
      if (node.process) break;
    }
    throw new Error(`${failure}:\n${this.tail()}`);
  }

  /** The multi-host URL the services use (node1 first, as an operator lists them). */
  url(database = 'vault', attrs = 'read-write'): string {
    return `postgres://postgres:drill@${this.nodes.map((n) => `127.0.0.1:${n.pgPort}`).join(',')}/${database}?target_session_attrs=${attrs}`;
  }

  nodeUrl(node: PatroniNode, database = 'vault'): string {
    return `postgres://postgres:drill@127.0.0.1:${node.pgPort}/${database}`;
  }

  async startNode(node: PatroniNode): Promise<void> {
    node.process = this.spawnAs('patroni', [node.config]);
    this.children.push(node.process);
    node.process.on('exit', () => (node.process = undefined));
  }

  /** Stops a node's Patroni (which stops its PostgreSQL) and waits for it to exit. */
  async stopNode(node: PatroniNode): Promise<void> {
    const child = node.process;
    if (!child) return;
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(child.pid!, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
  }

  /** kill -9 of a node's postmaster (Patroni itself keeps running). */
  killPostmaster(node: PatroniNode): number {
    const pid = Number(readFileSync(join(node.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    return pid;
  }

  /** 'primary' or 'replica' (Patroni's REST answers 200 on /primary or /replica), or 'down'. */
  async role(node: PatroniNode): Promise<'primary' | 'replica' | 'down'> {
    for (const role of ['primary', 'replica'] as const) {
      const answer = await fetch(`http://127.0.0.1:${node.restPort}/${role}`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (answer?.status === 200) return role;
    }
    return 'down';
  }

  async leader(): Promise<PatroniNode | undefined> {
    for (const node of this.nodes) if ((await this.role(node)) === 'primary') return node;
    return undefined;
  }

  /** Until the cluster has a leader and a synchronous standby streaming from it. */
  async waitSynchronous(timeoutMs: number): Promise<boolean> {
    return eventually(() => this.isSynchronous(), timeoutMs, 500);
  }

  private async isSynchronous(): Promise<boolean> {
    const members = await this.members();
    return members.some((m) => m.role === 'leader' && m.state === 'running') && members.some((m) => m.role === 'sync_standby' && /running|streaming/.test(m.state));
  }

  async members(): Promise<{ name: string; role: string; state: string }[]> {
    for (const node of this.nodes) {
      const answer = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (answer?.ok) return ((await answer.json()) as { members: { name: string; role: string; state: string }[] }).members;
    }
    return [];
  }

  /** `patronictl switchover`, planned, to the given candidate. */
  async switchover(candidate: PatroniNode): Promise<string> {
    const leader = this.nodes.find((n) => n !== candidate)!;
    const { stdout } = await this.as('patronictl', ['-c', leader.config, 'switchover', '--leader', leader.name, '--candidate', candidate.name, '--force']);
    return stdout;
  }

  /** A query on one node directly (not through the multi-host URL). */
  async query<T>(node: PatroniNode, sql: string, database = 'vault'): Promise<T[]> {
    const client = new Client({ connectionString: this.nodeUrl(node, database), connectionTimeoutMillis: 3000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async destroy(): Promise<void> {
    for (const node of this.nodes) {
      await this.stopNode(node).catch(() => undefined);
      try {
        this.killPostmaster(node);
      } catch {
        // not running
      }
    }
    if (this.etcd && this.etcd.exitCode === null) this.etcd.kill('SIGKILL');
    // PostgreSQL's processes inherit Patroni's output pipes: let go of them (jest waits otherwise).
    for (const child of [this.etcd, ...this.children]) {
      child?.stdout?.destroy();
      child?.stderr?.destroy();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  tail(): string {
    return this.log.slice(-4000);
  }

  private writeConfig(node: PatroniNode): void {
    const bin = postgresBin();
    mkdirSync(node.dir, { recursive: true, mode: 0o700 });
    if (isRoot()) chownSync(node.dir, postgresId('-u'), postgresId('-g'));
    // YAML is a superset of JSON.
    const config = {
      scope: this.scope,
      name: node.name,
      log: { level: 'WARNING' },
      restapi: { listen: `127.0.0.1:${node.restPort}`, connect_address: `127.0.0.1:${node.restPort}` },
      etcd3: { hosts: `127.0.0.1:${this.etcdPort}` },
      bootstrap: {
        dcs: {
          ttl: 10,
          loop_wait: 1,
          retry_timeout: 4,
          primary_start_timeout: 0,
          maximum_lag_on_failover: 1048576,
          synchronous_mode: true,
          synchronous_mode_strict: true,
          postgresql: {
            use_pg_rewind: true,
            parameters: { max_connections: 100, wal_log_hints: 'on', max_wal_senders: 10, max_replication_slots: 10, wal_keep_size: '128MB', hot_standby: 'on' },
          },
        },
        initdb: [{ encoding: 'UTF8' }, { 'auth-local': 'trust' }],
        pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 md5', 'host replication all 127.0.0.1/32 md5'],
      },
      postgresql: {
        listen: `127.0.0.1:${node.pgPort}`,
        connect_address: `127.0.0.1:${node.pgPort}`,
        data_dir: join(node.dir, 'data'),
        bin_dir: bin,
        pgpass: join(node.dir, 'pgpass'),
        authentication: {
          superuser: { username: 'postgres', password: 'drill' },
          replication: { username: 'replicator', password: 'drill' },
          rewind: { username: 'postgres', password: 'drill' },
        },
        parameters: { unix_socket_directories: node.dir, fsync: 'off', full_page_writes: 'on' },
      },
      tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
    };
    writeFileSync(node.config, JSON.stringify(config, null, 2), { mode: 0o600 });
    if (isRoot()) chownSync(node.config, postgresId('-u'), postgresId('-g'));
  }

  // As the postgres user through spawn's uid/gid (not runuser, which would stand between the
  // test and the process and SIGKILL it 2 s after passing a SIGTERM on).
  private spawnAs(command: string, args: string[]): ChildProcess {
    const child = spawn(command, args, { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'], env: this.env(), ...asPostgres() });
    const keep = (d: Buffer) => (this.log = (this.log + d.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    return child;
  }

  private as(command: string, args: string[]) {
    return run(command, args, { cwd: this.dir, env: this.env(), ...asPostgres() });
  }

  private env(): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, HOME: this.dir, LANG: 'C.UTF-8' };
  }
}

function asPostgres(): { uid?: number; gid?: number } {
  return isRoot() ? { uid: postgresId('-u'), gid: postgresId('-g') } : {};
}

/** True when Patroni and etcd are installed (scripts/test-prereqs.sh installs them as root). */
export function patroniAvailable(): boolean {
  try {
    execFileSync('patroni', ['--version'], { stdio: 'ignore' });
    execFileSync('etcd', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function postgresBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b));
  return `/usr/lib/postgresql/${versions[versions.length - 1]}/bin`;
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function postgresId(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
}

