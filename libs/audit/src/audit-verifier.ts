import { DataSource } from 'typeorm';
import { Keyring } from '@app/crypto';
import { CHAIN_COLUMNS, chainLink, ChainProblem, ChainReport, ChainRow, genesisHash } from './audit-chain';
import { loadChainState } from './audit-chain-key';

const BATCH = 5000;

/**
 * Walks the sealed audit rows in id order and reports the first row that was altered,
 * inserted or removed after sealing. Links are checked against the stored link of the
 * previous row, so one altered row is reported alone and the rest of the chain still counts.
 */
export async function verifyAuditChain(dataSource: DataSource, keyring: Keyring): Promise<ChainReport> {
  const state = await loadChainState(dataSource, keyring);
  const head = BigInt(state.lastId);
  const checkpoints = new Map<string, Buffer>(
    (await dataSource.query('SELECT last_audit_id::text AS id, chain_hash FROM audit_checkpoints')).map(
      (c: { id: string; chain_hash: Buffer }) => [c.id, c.chain_hash],
    ),
  );
  let prev = { id: '0', hash: genesisHash(state.key) };
  let checked = 0;
  let cursor = '0';
  const report = (problem: ChainProblem): ChainReport => ({ ok: false, checked, headId: state.lastId, unsealed: 0, problem });

  for (;;) {
    const rows: ChainRow[] = await dataSource.query(`SELECT ${CHAIN_COLUMNS} FROM audit a WHERE a.id > $1 ORDER BY a.id LIMIT ${BATCH}`, [cursor]);
    if (rows.length === 0) break;
    for (const row of rows) {
      const id = BigInt(row.id);
      if (id > head) {
        if (row.chain_hash) return report({ kind: 'inserted', id: row.id, message: `row ${row.id} carries a seal but lies after the chain head ${state.lastId}` });
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
      if (!chainLink(state.key, prev.hash, prev.id, row).equals(row.chain_hash)) {
        const [next] = await dataSource.query('SELECT chain_prev::text AS chain_prev FROM audit WHERE id > $1 ORDER BY id LIMIT 1', [row.id]);
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
    cursor = rows[rows.length - 1].id;
  }

  if (prev.id !== state.lastId || !prev.hash.equals(state.lastHash)) {
    return report({ kind: 'removed', id: state.lastId, message: `rows after ${prev.id} up to the chain head ${state.lastId} have been removed` });
  }
  const missing = [...checkpoints.keys()].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[0];
  if (missing !== undefined) {
    return report({ kind: 'removed', id: missing, message: `row ${missing}, named by a checkpoint, has been removed` });
  }
  const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM audit WHERE id > $1', [state.lastId]);
  return { ok: true, checked, headId: state.lastId, unsealed: n };
}
