import { DataSource } from 'typeorm';
import { connectClient, dataSourceOptions, pgPool, runMigrations } from '@app/persistence';
import { eventually } from './load';
import { PatroniCluster, patroniAvailable } from './patroni-cluster';
import { ThrowawayPostgres } from './throwaway-postgres';

const portOf = async (ds: DataSource) => Number((await ds.query('SELECT inet_server_port() AS p'))[0].p);

/**
 * A multi-host DATABASE_URL against a real leader and standby (Patroni): each connection
 * keeps the first host in the list that satisfies target_session_attrs, whatever the order.
 */
describe('several hosts in DATABASE_URL', () => {
  const cluster = new PatroniCluster();
  const open: DataSource[] = [];
  const dataSource = async (url: string) => {
    const ds = await new DataSource(dataSourceOptions(url, 2, { connectTimeoutMs: 3000 })).initialize();
    open.push(ds);
    return ds;
  };
  // The standby listed first, the leader second.
  const standbyFirst = (attrs: string) => {
    const [leader, standby] = cluster.nodes;
    return `postgres://postgres:drill@127.0.0.1:${standby.pgPort},127.0.0.1:${leader.pgPort}/vault?target_session_attrs=${attrs}`;
  };

  beforeAll(async () => {
    // scripts/test-prereqs.sh installs them; a missing drill must fail, not pass unseen.
    if (!patroniAvailable()) throw new Error('Patroni and etcd are needed (Debian packages patroni, etcd-server): run scripts/test-prereqs.sh as root');
    await cluster.start();
    await cluster.query(cluster.nodes[0], 'CREATE DATABASE vault', 'postgres');
    // Migrations through the multi-host URL.
    await runMigrations(cluster.url());
  }, 180_000);
  afterAll(async () => {
    for (const ds of open) await ds.destroy().catch(() => undefined);
    await cluster.destroy();
  }, 60_000);

  it('read-write and primary keep the leader even when the standby is listed first; any keeps the first', async () => {
    const [leader, standby] = cluster.nodes;
    expect(await portOf(await dataSource(standbyFirst('read-write')))).toBe(leader.pgPort);
    expect(await portOf(await dataSource(standbyFirst('primary')))).toBe(leader.pgPort);
    expect(await portOf(await dataSource(standbyFirst('any')))).toBe(standby.pgPort);
    const raw = await connectClient(standbyFirst('read-write'));
    expect((await raw.query('SELECT pg_is_in_recovery() AS r')).rows[0].r).toBe(false);
    await raw.end();
  });

  it('the raw pool under TypeORM (prepared statements) writes on the leader', async () => {
    const ds = await dataSource(cluster.url());
    const { rows } = await pgPool(ds).query({ name: 'mh_probe', text: 'SELECT inet_server_port() AS p, pg_is_in_recovery() AS r' });
    expect(rows[0]).toEqual({ p: cluster.nodes[0].pgPort, r: false });
  });

  it('a commit the synchronous standby never confirmed is not acknowledged (08007), and the connection is dropped', async () => {
    const ds = await dataSource(cluster.url());
    await ds.query('CREATE TABLE IF NOT EXISTS sync_probe (n int)');
    // Strict synchronous mode and no standby: every commit waits. statement_timeout does not
    // end that wait (PostgreSQL disarms it before committing); a cancel request does, and the
    // commit then stands on the leader alone, with only a warning.
    await cluster.stopNode(cluster.nodes[1]);
    // Cancels the commit once it is seen waiting (a fixed wait could cancel before it starts, and the commit would then wait for ever).
    const cancelWaitingCommit = async () => {
      const cancelled = () =>
        cluster.query<{ n: number }>(
          cluster.nodes[0],
          `SELECT count(pg_cancel_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'credential-vault' AND wait_event = 'SyncRep'`,
          'postgres',
        );
      expect(await eventually(async () => (await cancelled())[0].n > 0, 30_000, 50)).toBe(true);
    };
    try {
      const [inTransaction] = await Promise.all([
        ds.transaction((m) => m.query('INSERT INTO sync_probe VALUES (1)')).then(() => 'acknowledged', (e: { code?: string; driverError?: { code?: string } }) => e.driverError?.code ?? e.code),
        cancelWaitingCommit(),
      ]);
      expect(inTransaction).toBe('08007');
      const [onPool] = await Promise.all([
        pgPool(ds).query('INSERT INTO sync_probe VALUES (2)').then(() => 'acknowledged', (e: { code?: string }) => e.code),
        cancelWaitingCommit(),
      ]);
      expect(onPool).toBe('08007');
    } finally {
      await cluster.startNode(cluster.nodes[1]);
      expect(await cluster.waitSynchronous(90_000)).toBe(true);
    }
  }, 150_000);

  it('a host that refuses is skipped; no qualifying host fails as the database being unavailable (08001)', async () => {
    const [leader, standby] = cluster.nodes;
    const dead = `127.0.0.1:1`;
    const ds = await dataSource(`postgres://postgres:drill@${dead},127.0.0.1:${leader.pgPort}/vault?target_session_attrs=read-write`);
    expect(await portOf(ds)).toBe(leader.pgPort);
    const onlyStandby = `postgres://postgres:drill@${dead},127.0.0.1:${standby.pgPort}/vault?target_session_attrs=read-write`;
    const error = await connectClient(onlyStandby).then(() => undefined, (e: Error & { code?: string }) => e);
    expect(error?.code).toBe('08001');
    expect(error?.message).toMatch(/No database host accepts a read-write session: 127\.0\.0\.1:1 unreachable .*; 127\.0\.0\.1:\d+ is a standby/);
  });
});

/**
 * A primary demoted in place (as a managed service may do) keeps its sessions: every
 * statement on them fails with 25006. The pool must not hand such a connection out again.
 */
describe('a pooled connection that met a read-only server', () => {
  const pg = new ThrowawayPostgres();
  let ds: DataSource;

  beforeAll(async () => {
    await pg.start();
    ds = await new DataSource(dataSourceOptions(pg.url, 1)).initialize();
    await ds.query('CREATE TABLE IF NOT EXISTS demote_probe (n int)');
  }, 120_000);
  afterAll(async () => {
    await ds?.destroy();
    await pg.destroy();
  });

  const readOnly = async (on: boolean) => {
    const admin = await connectClient(pg.url.replace(/\/vault$/, '/postgres'));
    await admin.query(`ALTER SYSTEM SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
    await admin.query('SELECT pg_reload_conf()');
    // This session seeing the setting shows the server has reloaded it and signalled every open session.
    expect(await eventually(async () => (await admin.query('SELECT current_setting($1) AS v', ['default_transaction_read_only'])).rows[0].v === (on ? 'on' : 'off'), 10_000, 20)).toBe(true);
    await admin.end();
  };

  it('is dropped after 25006 (a new connection next time), in a transaction and on the raw pool', async () => {
    const pid = async () => (await ds.query('SELECT pg_backend_pid() AS pid'))[0].pid as number;
    const first = await pid();
    await readOnly(true);
    const failed = await ds.transaction((m) => m.query('INSERT INTO demote_probe VALUES (1)')).then(() => undefined, (e: { code?: string; driverError?: { code?: string } }) => e.driverError?.code ?? e.code);
    expect(failed).toBe('25006');
    await readOnly(false);
    const second = await pid();
    expect(second).not.toBe(first);
    await ds.transaction((m) => m.query('INSERT INTO demote_probe VALUES (2)'));

    await readOnly(true);
    const onPool = await pgPool(ds).query('INSERT INTO demote_probe VALUES (3)').then(() => undefined, (e: { code?: string }) => e.code);
    expect(onPool).toBe('25006');
    await readOnly(false);
    expect(await pid()).not.toBe(second);
  });
});
