import { DataSource, QueryRunner } from 'typeorm';
import { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { Keyring } from '@app/crypto';
import { ChainProblem, ChainReport, genesisHash } from './audit-chain';
import { loadChainState } from './audit-chain-key';
import { ChainRange, checkRange, Link } from './audit-chain-range';
import { ChainHashPool } from './chain-hash-pool';

export interface VerifyOptions {
  /** Ids per range: each range is one COPY, small enough that work past a problem stays short. */
  rangeIds?: number;
  /** Connections walking ranges at once (PostgreSQL reads and sends a range while node hashes another). */
  streams?: number;
  /** Worker threads computing the HMACs. */
  hashWorkers?: number;
}

type RangeOutcome = { checked: number; last: Link; problem?: ChainProblem } | { error: unknown };

/**
 * Walks the audit rows in id order with their links (audit_seals) and reports the first row
 * that was altered, inserted or removed after sealing. Links are checked against the stored
 * link of the previous row, so one altered row is reported alone, and the trail can be checked
 * in independent id ranges: each range starts from the stored link of the row just before it,
 * and ranges run side by side on connections that share one exported REPEATABLE READ snapshot
 * (the head, the links and the rows agree even while the sealer runs). Results are taken in
 * range order, so the report is the first problem in id order, as a single walk would give.
 */
export async function verifyAuditChain(dataSource: DataSource, keyring: Keyring, options: VerifyOptions = {}): Promise<ChainReport> {
  const { rangeIds = 100_000, streams = 2, hashWorkers = 2 } = options;
  const { key } = await loadChainState(dataSource, keyring);
  const runners: QueryRunner[] = [];
  const hashes = new ChainHashPool(key, Math.max(1, hashWorkers));
  const open = async (snapshot?: string) => {
    const runner = dataSource.createQueryRunner();
    runners.push(runner);
    await runner.connect();
    await runner.startTransaction('REPEATABLE READ');
    if (snapshot) await runner.query(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
    // Ranges are short index walks: no JIT compilation or parallel workers per range.
    await runner.query('SET LOCAL jit = off; SET LOCAL max_parallel_workers_per_gather = 0');
    return runner;
  };
  try {
    const main = await open();
    const [state] = await main.query('SELECT last_id::text AS last_id, last_hash, pg_export_snapshot() AS snapshot FROM audit_chain WHERE id = 1');
    if (!/^[0-9A-F-]+$/i.test(state.snapshot)) throw new Error(`Unexpected snapshot name ${state.snapshot}`);
    const extra = Math.max(0, Math.min(streams, poolSize(dataSource)) - 1);
    const others = await Promise.all(Array.from({ length: extra }, () => open(state.snapshot)));
    return await walk([main, ...others], key, hashes, state.last_id, state.last_hash, rangeIds);
  } finally {
    await hashes.close();
    for (const runner of runners) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
  }
}

async function walk(runners: QueryRunner[], key: Buffer, hashes: ChainHashPool, headId: string, headHash: Buffer, rangeIds: number): Promise<ChainReport> {
  const head = safeId(headId);
  const main = runners[0];
  const checkpoints = new Map<number, Buffer>();
  const unreachable: string[] = []; // named beyond 2^53: no checked row can match them
  for (const c of await main.query('SELECT last_audit_id::text AS id, chain_hash FROM audit_checkpoints')) {
    if (Number.isSafeInteger(Number(c.id))) checkpoints.set(Number(c.id), c.chain_hash);
    else unreachable.push(c.id);
  }
  const [{ first }] = await main.query('SELECT min(id)::text AS first FROM audit');
  const ranges: ChainRange[] = [];
  for (let lo = first === null ? head : safeId(first) - 1; lo < head; lo += rangeIds) ranges.push({ lo, hi: Math.min(lo + rangeIds, head) });

  const outcomes: RangeOutcome[] = [];
  let stopAt = Infinity; // the first range with a problem: later ranges no longer matter
  let next = 0;
  const stream = async (runner: QueryRunner) => {
    const client = await runner.connect();
    for (let k = next++; k < ranges.length && k < stopAt; k = next++) {
      const mine = k;
      outcomes[k] = await checkRange(client, key, hashes, checkpoints, ranges[k], () => mine > stopAt).catch((error: unknown) => ({ error }));
      if ('error' in outcomes[k] || (outcomes[k] as { problem?: ChainProblem }).problem) stopAt = Math.min(stopAt, k);
    }
  };
  await Promise.all(runners.map(stream));

  let checked = 0;
  let last: Link = { id: 0, hash: genesisHash(key) };
  const report = (problem: ChainProblem): ChainReport => ({ ok: false, checked, headId, unsealed: 0, problem });
  for (const outcome of outcomes) {
    if ('error' in outcome) throw outcome.error;
    checked += outcome.checked;
    if (outcome.problem) return report(outcome.problem);
    last = outcome.last;
  }

  const [sealed] = await main.query('SELECT a.id::text AS id FROM audit a JOIN audit_seals s ON s.audit_id = a.id WHERE a.id > $1 ORDER BY a.id LIMIT 1', [headId]);
  if (sealed) return report({ kind: 'inserted', id: sealed.id, message: `row ${sealed.id} carries a seal but lies after the chain head ${headId}` });
  if (last.id !== head || !last.hash.equals(headHash)) {
    return report({ kind: 'removed', id: headId, message: `rows after ${last.id} up to the chain head ${headId} have been removed` });
  }
  const missing = [...[...checkpoints.keys()].map(String), ...unreachable].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[0];
  if (missing !== undefined) {
    return report({ kind: 'removed', id: String(missing), message: `row ${missing}, named by a checkpoint, has been removed` });
  }
  const [{ n }] = await main.query('SELECT count(*)::int AS n FROM audit WHERE id > $1', [headId]);
  return { ok: true, checked, headId, unsealed: n };
}

/** Audit ids are compared as JS numbers: exact up to 2^53, far beyond any trail. */
function safeId(text: string): number {
  const id = Number(text);
  if (!Number.isSafeInteger(id)) throw new Error(`Audit id ${text} is beyond what verify-audit handles (2^53)`);
  return id;
}

function poolSize(dataSource: DataSource): number {
  const options = dataSource.options as PostgresConnectionOptions;
  return Number(options.extra?.max ?? options.poolSize ?? 10);
}
