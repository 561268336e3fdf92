import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { ConnectorKind } from '@app/connectors';
import type { ConnectorPeer } from '../test/support/connector-peers';
import { benchEveryKind, BenchVault } from './peer-bench';

// One schedule due at once for ACCOUNTS accounts of one resource; the time from the due time
// to the last run done, with ROTATION_CONCURRENCY accounts at once on each of INSTANCES instances.
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 300);
// Each SSH account is a local user (useradd): fewer of them.
const SSH_ACCOUNTS = Number(process.env.BENCH_SSH_ACCOUNTS ?? 40);
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '4';
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 1);

interface Figures {
  kind: ConnectorKind;
  accounts: number;
  seconds: number;
  perMinute: number;
  failed: number;
}

benchEveryKind(
  {
    name: 'rotation',
    title: `scheduled rotation: one due time, ${INSTANCES} instance(s), ROTATION_CONCURRENCY=${CONCURRENCY}`,
    env: { ROTATION_TICK_MS: '100', ROTATION_CONCURRENCY: CONCURRENCY, VERIFY_INTERVAL_MS: '0' },
    instances: INSTANCES,
  },
  async (kind: ConnectorKind, peer: ConnectorPeer, vault: BenchVault): Promise<Figures> => {
    const { db, call } = vault;
    const rid = await vault.peerResource(peer, `${kind}-fleet`);
    await vault.peerAccounts(peer, rid, kind === 'ssh' ? SSH_ACCOUNTS : ACCOUNTS, 'rot');
    await call('PUT', `/resources/${rid}/remotepasswordreset`, { ACCOUNTNAME: peer.admin.username, ...peer.config });
    const group = await call('POST', '/resourcegroup', { critgroup: `${kind}-fleet`, GROUPTYPE: 'static' });
    const gid = Number(group.Details!.RESOURCEGROUPID);
    await call('PUT', `/resourcegroup/${gid}/resources`, { RESOURCEIDS: [String(rid)] });
    await call('PUT', `/resourcegroup/${gid}/passwordrotation`, { ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'days' });

    await db.query('UPDATE rotation_schedules SET next_run = now() WHERE group_id = $1', [gid]);
    const started = performance.now();
    for (;;) {
      const [{ left }] = (await db.query(`SELECT count(*)::int AS left FROM rotation_runs WHERE status = 'due'`)).rows;
      const [{ runs }] = (await db.query('SELECT count(*)::int AS runs FROM rotation_runs')).rows;
      if (runs > 0 && left === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const [{ done, failed }] = (
      await db.query(`SELECT count(*) FILTER (WHERE status = 'done')::int AS done, count(*) FILTER (WHERE status = 'failed')::int AS failed FROM rotation_runs`)
    ).rows;
    return { kind, accounts: done + failed, seconds: Number(seconds.toFixed(2)), perMinute: Math.round((done * 60) / seconds), failed };
  },
);
