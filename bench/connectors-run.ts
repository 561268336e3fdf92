import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { ConnectorKind } from '@app/connectors';
import type { ConnectorPeer } from '../test/support/connector-peers';
import { benchEveryKind, BenchVault } from './peer-bench';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 16);
const VERIFY_ACCOUNTS = Number(process.env.BENCH_VERIFY_ACCOUNTS ?? 1000);
// Each SSH account is a local user (useradd): fewer of them, the time scaled to 1,000.
const SSH_VERIFY_ACCOUNTS = Number(process.env.BENCH_SSH_VERIFY_ACCOUNTS ?? 60);

interface Figures {
  kind: ConnectorKind;
  changes: number;
  changesPerSecond: number;
  failed: number;
  verified: number;
  verifySeconds: number;
  secondsPer1000: number;
}

benchEveryKind(
  { name: 'connectors', title: `remote changes: ${WORKERS} accounts changed concurrently for ${SECONDS} s; verification: the periodic round (8 logins at once per instance)` },
  async (kind: ConnectorKind, peer: ConnectorPeer, vault: BenchVault): Promise<Figures> => {
    const { db, call } = vault;
    const rid = await vault.peerResource(peer, `${kind}-bench`);
    const addAccounts = (count: number, prefix: string) => vault.peerAccounts(peer, rid, count, prefix);

    const changeIds = await addAccounts(WORKERS, 'chg');
    // Configured after the accounts exist and verified at once: the first round runs at start, so these wait an hour.
    await db.query(`UPDATE accounts SET last_verified_at = now() WHERE resource_id = $1`, [rid]);
    await call('PUT', `/resources/${rid}/remotepasswordreset`, { ACCOUNTNAME: peer.admin.username, ...peer.config });

    let changes = 0;
    let failed = 0;
    let serial = 0;
    const deadline = performance.now() + SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      changeIds.map(async (aid) => {
        while (performance.now() < deadline) {
          const answer = (await vault.attempt('PUT', `/resources/${rid}/accounts/${aid}/password`, { NEWPASSWORD: `Bench-New-${++serial}-Xy9!`, RESETTYPE: 'REMOTE' })).result;
          if (answer.status === 'Success') changes++;
          else if (++failed <= 3) console.log(`${kind}: ${answer.message}`);
        }
      }),
    );
    const changeSeconds = (performance.now() - started) / 1000;

    const count = kind === 'ssh' ? SSH_VERIFY_ACCOUNTS : VERIFY_ACCOUNTS;
    const verifyIds = await addAccounts(count, 'ver');
    // Due now: the instance's next round (every 10 s at the longest) claims them 50 at a time.
    await db.query('UPDATE accounts SET last_verified_at = NULL, verify_claimed_at = NULL WHERE id = ANY($1)', [verifyIds]);
    let first = 0;
    let done = 0;
    for (;;) {
      const [{ n }] = (await db.query('SELECT count(*)::int AS n FROM accounts WHERE id = ANY($1) AND last_verified_at IS NOT NULL', [verifyIds])).rows;
      if (n > 0 && !first) first = performance.now();
      if (n === verifyIds.length) {
        done = performance.now();
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const [{ insync }] = (await db.query(`SELECT count(*) FILTER (WHERE password_status = 'IN SYNC')::int AS insync FROM accounts WHERE id = ANY($1)`, [verifyIds])).rows;
    if (insync !== verifyIds.length) console.log(`${kind}: ${verifyIds.length - insync} accounts not IN SYNC`);
    const verifySeconds = (done - first) / 1000;
    return {
      kind,
      changes,
      changesPerSecond: Number((changes / changeSeconds).toFixed(1)),
      failed,
      verified: verifyIds.length,
      verifySeconds: Number(verifySeconds.toFixed(2)),
      secondsPer1000: Number(((verifySeconds * 1000) / verifyIds.length).toFixed(1)),
    };
  },
);
