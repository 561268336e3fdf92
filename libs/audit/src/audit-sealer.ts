import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ClientBase } from 'pg';
import { DataSource } from 'typeorm';
import { Keyring } from '@app/crypto';
import { loadChainState } from './audit-chain-key';
import { linkRows } from './seal-links';

const INTERVAL_MS = 2000;
/**
 * Rows per sealing transaction (it holds the chain's row lock): small enough to commit
 * often, large enough that the per-transaction statements are a small share.
 */
const BATCH = 1000;
/** A checkpoint every this many sealed rows, and on the first sealing after a quiet spell. */
const CHECKPOINT_EVERY = 1000;
const QUIET_SPELL = '5 minutes';

/** An id bound and the transactions that were running when it was read. */
interface Horizon {
  bound: string;
  running: string[];
}

/**
 * Seals committed audit rows into the hash chain, in id order, in the background, so the
 * request path (the password read) only inserts its row. Links go to the narrow audit_seals
 * table (audit rows are never rewritten), and the per-hour audit_counts move with the head.
 *
 * Ids are drawn before commit, so id n+1 can commit before id n. The audit id default takes
 * the writer's xid before it draws the id (migration AuditChainAndGroups): after reading the
 * sequence's last value B and then the list of running transactions R, every row with
 * id <= B belongs to a transaction that has finished or is in R. Once all of R have finished,
 * rows up to B are final (a gap is a rollback) and can be sealed. "Finished" is judged by
 * snapshot visibility, not commit status (see finished()). One instance seals at a
 * time (the chain row is locked FOR UPDATE SKIP LOCKED).
 */
@Injectable()
export class AuditSealer implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('AuditChain');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private pending?: Horizon;

  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.tick(), INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Seals every row committed before this call (waits for transactions still in flight). */
  async sealNow(timeoutMs = 10_000): Promise<void> {
    await this.running;
    const horizon = await this.observe();
    const deadline = Date.now() + timeoutMs;
    for (let verdict = await this.finished(horizon); verdict !== true; verdict = await this.finished(horizon)) {
      if (verdict === 'lost' || Date.now() > deadline) throw new Error('Audit rows are still in flight; try again');
      await new Promise((r) => setTimeout(r, 20));
    }
    await this.exclusive(() => this.sealUpTo(horizon.bound));
    // Another instance may have held the chain (SKIP LOCKED) and sealed only up to what it saw:
    // "now" means up to this horizon, so try again until the chain's head has reached it.
    while (!(await this.headReached(horizon.bound))) {
      if (Date.now() > deadline) throw new Error('Audit rows are still being sealed by another instance; try again');
      await new Promise((r) => setTimeout(r, 20));
      await this.exclusive(() => this.sealUpTo(horizon.bound));
    }
  }

  private async headReached(bound: string): Promise<boolean> {
    // No row up to the bound left after the head (ids of rolled-back writes leave gaps).
    const [row] = await this.dataSource.query(
      'SELECT NOT EXISTS (SELECT 1 FROM audit a WHERE a.id > c.last_id AND a.id <= $1::bigint) AS reached FROM audit_chain c WHERE c.id = 1',
      [bound],
    );
    return row?.reached !== false;
  }

  private tick(): Promise<void> {
    return this.exclusive(async () => {
      const verdict = this.pending && (await this.finished(this.pending));
      if (verdict === 'lost') this.pending = undefined;
      if (verdict === true) {
        await this.sealUpTo(this.pending!.bound);
        this.pending = undefined;
      }
      this.pending ??= await this.observe();
    }).catch((e: Error) => {
      // Observed maybe on a node that is no longer the leader: observed again on the next tick.
      this.pending = undefined;
      this.logger.error(`Audit sealing failed: ${e.message}`);
    });
  }

  private async exclusive(work: () => Promise<void>): Promise<void> {
    while (this.running) await this.running;
    this.running = work().finally(() => (this.running = undefined));
    return this.running;
  }

  // Two statements on purpose: the bound is read before the snapshot of running transactions.
  private async observe(): Promise<Horizon> {
    const [seq] = await this.dataSource.query('SELECT last_value::text AS last_value, is_called FROM audit_id_seq');
    const bound = seq.is_called ? seq.last_value : String(BigInt(seq.last_value) - 1n);
    const [snap] = await this.dataSource.query(
      'SELECT ARRAY(SELECT x::text FROM pg_snapshot_xip(pg_current_snapshot()) x) AS running',
    );
    return { bound, running: snap.running };
  }

  // Finished means visible to every snapshot taken from now on: committed (or rolled back) AND
  // gone from the running list. pg_xact_status says "committed" earlier than that (a commit
  // waiting for a synchronous standby is still running for every snapshot), and sealing past
  // such a row would skip it forever.
  // 'lost': the sequence is below the bound, so the horizon was read on a leader that has
  // since failed over and the ids it handed out were never replicated; the new leader will
  // hand them out again, and sealing up to the bound would skip those rows forever.
  private async finished(horizon: Horizon): Promise<boolean | 'lost'> {
    const [row] = await this.dataSource.query(
      `SELECT bool_and(pg_visible_in_snapshot(x::xid8, pg_current_snapshot())) AS done,
              (SELECT last_value FROM audit_id_seq) >= $2::bigint AS reached
       FROM unnest($1::text[]) x`,
      [horizon.running, horizon.bound],
    );
    if (!row.reached) return 'lost';
    return row.done !== false;
  }

  private async sealUpTo(bound: string): Promise<void> {
    const { key } = await loadChainState(this.dataSource, this.keyring);
    for (;;) {
      // Whether rows up to the bound may be left for another batch.
      const more = await this.dataSource.transaction(async (m) => {
        const [state] = await m.query(
          'SELECT last_id::text AS last_id, last_hash, sealed_rows::text AS sealed_rows FROM audit_chain WHERE id = 1 FOR UPDATE SKIP LOCKED',
        );
        if (!state) return false; // another instance is sealing
        const runner = m.queryRunner as unknown as { connect(): Promise<ClientBase> };
        const { ids, hashes, more: left } = await linkRows(await runner.connect(), key, state.last_id, state.last_hash, bound, BATCH);
        if (ids.length === 0) return false;
        const prevId = ids[ids.length - 1];
        const prevHash = hashes[hashes.length - 1];
        // One list of ids and one binary run of 32-byte links: serialising an array per
        // column cost node more than hashing (each link a hex string, each id quoted).
        await m.query(
          `INSERT INTO audit_seals (audit_id, prev_id, hash)
           SELECT x.id, coalesce(lag(x.id) OVER (ORDER BY x.n), $2::bigint), substring($3::bytea FROM (x.n::int - 1) * 32 + 1 FOR 32)
           FROM unnest($1::bigint[]) WITH ORDINALITY AS x(id, n)`,
          [`{${ids.join(',')}}`, state.last_id, Buffer.concat(hashes)],
        );
        // The counts cover exactly the sealed rows: a reader adds the rows above the head itself.
        await m.query(
          `INSERT INTO audit_counts (org_id, category, hour, rows)
           SELECT org_id, category, floor(extract(epoch FROM created_at) / 3600)::bigint, count(*) FROM audit
           WHERE id > $1 AND id <= $2 AND org_id IS NOT NULL GROUP BY 1, 2, 3
           ON CONFLICT (org_id, category, hour) DO UPDATE SET rows = audit_counts.rows + excluded.rows`,
          [state.last_id, prevId],
        );
        const before = BigInt(state.sealed_rows);
        const after = before + BigInt(ids.length);
        await m.query('UPDATE audit_chain SET last_id = $1, last_hash = $2, sealed_rows = $3, updated_at = now() WHERE id = 1', [
          prevId,
          prevHash,
          after.toString(),
        ]);
        const [recent] = await m.query(
          `SELECT 1 FROM audit_checkpoints WHERE id = (SELECT max(id) FROM audit_checkpoints) AND created_at > now() - interval '${QUIET_SPELL}'`,
        );
        if (after / BigInt(CHECKPOINT_EVERY) !== before / BigInt(CHECKPOINT_EVERY) || !recent) {
          await m.query('INSERT INTO audit_checkpoints (last_audit_id, chain_hash) VALUES ($1, $2)', [prevId, prevHash]);
          // Logged so the head can be compared with a copy kept outside the database.
          this.logger.log(`checkpoint at audit id ${prevId}: ${prevHash.toString('hex')}`);
        }
        return left;
      });
      if (!more) return;
    }
  }
}
