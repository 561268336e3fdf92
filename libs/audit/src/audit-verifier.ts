import { DataSource, QueryRunner } from 'typeorm';
import { Keyring } from '@app/crypto';
import { CHAIN_COLUMNS, chainLink, chainLinkOfPayload, chainPayloadSql, ChainProblem, ChainReport, ChainRow, genesisHash } from './audit-chain';
import { loadChainState } from './audit-chain-key';

// Small enough that a batch and the one being fetched die young (garbage collection stays cheap).
const BATCH = 2000;

interface SealedRow {
  id: string;
  payload: string;
  chain_prev: string | null;
  chain_hash: Buffer | null;
}

/**
 * Walks the audit rows in id order with their links (audit_seals) and reports the first row
 * that was altered, inserted or removed after sealing. Links are checked against the stored
 * link of the previous row, so one altered row is reported alone and the rest of the chain
 * still counts. One snapshot (REPEATABLE READ) and one cursor: the head, the links and the rows
 * agree even while the sealer runs, and memory stays at one batch. PostgreSQL builds each row's
 * hashed text (chainPayloadSql) and the next batch is fetched while this one is hashed.
 */
export async function verifyAuditChain(dataSource: DataSource, keyring: Keyring): Promise<ChainReport> {
  const { key } = await loadChainState(dataSource, keyring);
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction('REPEATABLE READ');
    return await walk(runner, key);
  } finally {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    await runner.release();
  }
}

async function walk(runner: QueryRunner, key: Buffer): Promise<ChainReport> {
  const [state] = await runner.query('SELECT last_id::text AS last_id, last_hash FROM audit_chain WHERE id = 1');
  const headId: string = state.last_id;
  const head = BigInt(headId);
  const checkpoints = new Map<string, Buffer>(
    (await runner.query('SELECT last_audit_id::text AS id, chain_hash FROM audit_checkpoints')).map(
      (c: { id: string; chain_hash: Buffer }) => [c.id, c.chain_hash],
    ),
  );
  let prev = { id: '0', hash: genesisHash(key) };
  let checked = 0;
  const report = (problem: ChainProblem): ChainReport => ({ ok: false, checked, headId, unsealed: 0, problem });

  await runner.query(
    `DECLARE chain_walk NO SCROLL CURSOR FOR
     SELECT a.id::text AS id, ${chainPayloadSql('s.prev_id')} AS payload, s.prev_id::text AS chain_prev, s.hash AS chain_hash
     FROM audit a LEFT JOIN audit_seals s ON s.audit_id = a.id ORDER BY a.id`,
  );
  const fetch = (): Promise<SealedRow[]> => runner.query(`FETCH ${BATCH} FROM chain_walk`);
  let next = fetch();
  for (;;) {
    const rows = await next;
    if (rows.length === 0) break;
    next = fetch();
    next.catch(() => undefined); // awaited on the next turn; a report returned before then ends the transaction
    for (const row of rows) {
      const id = BigInt(row.id);
      if (id > head) {
        if (row.chain_hash) return report({ kind: 'inserted', id: row.id, message: `row ${row.id} carries a seal but lies after the chain head ${headId}` });
        continue;
      }
      if (!row.chain_hash || row.chain_prev === null) {
        return report({ kind: 'inserted', id: row.id, message: `row ${row.id} lies inside the sealed range but was never sealed` });
      }
      if (row.chain_prev !== prev.id) {
        const claimed = BigInt(row.chain_prev);
        if (claimed > BigInt(prev.id) && claimed < id) {
          return report({ kind: 'removed', id: row.chain_prev, message: `row ${row.chain_prev} (sealed between ${prev.id} and ${row.id}) has been removed` });
        }
        return report({ kind: 'altered', id: row.id, message: `row ${row.id} has been altered (its chain link was changed)` });
      }
      if (!chainLinkOfPayload(key, prev.hash, row.payload).equals(row.chain_hash) && !(await sealedAsWritten(runner, key, prev, row))) {
        const [next] = await runner.query('SELECT prev_id::text AS chain_prev FROM audit_seals WHERE audit_id > $1 ORDER BY audit_id LIMIT 1', [row.id]);
        if (next && next.chain_prev === prev.id) {
          return report({ kind: 'inserted', id: row.id, message: `row ${row.id} was inserted (the chain skips it)` });
        }
        return report({ kind: 'altered', id: row.id, message: `row ${row.id} has been altered (its content does not match its seal)` });
      }
      const checkpoint = checkpoints.get(row.id);
      if (checkpoint && !checkpoint.equals(row.chain_hash)) {
        return report({ kind: 'altered', id: row.id, message: `row ${row.id} does not match the checkpoint taken when it was sealed` });
      }
      checkpoints.delete(row.id);
      prev = { id: row.id, hash: row.chain_hash };
      checked += 1;
    }
  }

  if (prev.id !== headId || !prev.hash.equals(state.last_hash)) {
    return report({ kind: 'removed', id: headId, message: `rows after ${prev.id} up to the chain head ${headId} have been removed` });
  }
  const missing = [...checkpoints.keys()].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[0];
  if (missing !== undefined) {
    return report({ kind: 'removed', id: missing, message: `row ${missing}, named by a checkpoint, has been removed` });
  }
  const [{ n }] = await runner.query('SELECT count(*)::int AS n FROM audit WHERE id > $1', [headId]);
  return { ok: true, checked, headId, unsealed: n };
}

/** The definition of a link is chainLink over the row's columns: asked before a mismatch is reported. */
async function sealedAsWritten(runner: QueryRunner, key: Buffer, prev: { id: string; hash: Buffer }, row: SealedRow): Promise<boolean> {
  const [full]: ChainRow[] = await runner.query(`SELECT ${CHAIN_COLUMNS} FROM audit a WHERE a.id = $1`, [row.id]);
  return chainLink(key, prev.hash, prev.id, full).equals(row.chain_hash!);
}
