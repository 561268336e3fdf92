import { ClientBase } from 'pg';
import { CHAIN_COLUMNS, chainLink, ChainProblem, ChainRow, genesisHash } from './audit-chain';
import { BinaryRow, copyBinaryRows } from '@app/persistence';
import { ChainHashPool, INNER_BLOCK, RECORD_HEAD } from './chain-hash-pool';
import { BINARY_CHAIN_COLUMNS, BINARY_CHAIN_FIELDS, HASH_FIELD, ID_FIELD, PREV_ID_FIELD, payloadRoom, readInt8, writeChainPayload } from './chain-payload-binary';

/** Audit ids lo < id <= hi, all at or below the chain head. */
export interface ChainRange {
  lo: number;
  hi: number;
}

export interface Link {
  id: number;
  hash: Buffer;
}

export interface RangeResult {
  /** Rows of the range checked before the problem (or all of them). */
  checked: number;
  /** The last row checked (or the row before the range). */
  last: Link;
  problem?: ChainProblem;
}

/** A row whose link does not match the bytes hashed here: chainLink decides (sealedAsWritten). */
interface Suspect {
  id: number;
  hash: Buffer;
  prev: Link;
}

/**
 * Checks the rows of one range in id order, from the stored link of the row just before it,
 * inside the caller's snapshot. `stopped` turns true when an earlier range found a problem.
 */
export async function checkRange(
  client: ClientBase,
  key: Buffer,
  hashes: ChainHashPool,
  checkpoints: Map<number, Buffer>,
  range: ChainRange,
  stopped: () => boolean,
): Promise<RangeResult> {
  let checked = 0;
  let trusted = NaN;
  for (let lo = range.lo; ; ) {
    const walked = await walkRows(client, key, hashes, checkpoints, lo, range.hi, trusted, stopped);
    checked += walked.checked;
    if (!walked.suspect) return { ...walked, checked };
    const { id, prev } = walked.suspect;
    if (await sealedAsWritten(client, key, walked.suspect)) {
      trusted = id; // the fast bytes differ from chainLink's text for this row; walk on from it
      lo = id - 1;
      continue;
    }
    const { rows: [next] } = await client.query('SELECT prev_id::text AS chain_prev FROM audit_seals WHERE audit_id > $1 ORDER BY audit_id LIMIT 1', [id]);
    const problem: ChainProblem =
      next && next.chain_prev === String(prev.id)
        ? { kind: 'inserted', id: String(id), message: `row ${id} was inserted (the chain skips it)` }
        : { kind: 'altered', id: String(id), message: `row ${id} has been altered (its content does not match its seal)` };
    return { checked, last: prev, problem };
  }
}

interface Walked extends RangeResult {
  suspect?: Suspect;
}

// Batches a stream may have with the hash workers at once before it stops reading.
const BATCHES_IN_FLIGHT = 4;

async function walkRows(
  client: ClientBase,
  key: Buffer,
  hashes: ChainHashPool,
  checkpoints: Map<number, Buffer>,
  lo: number,
  hi: number,
  trusted: number,
  stopped: () => boolean,
): Promise<Walked> {
  const { rows: [before] } = await client.query('SELECT a.id::text AS id, s.hash FROM audit a LEFT JOIN audit_seals s ON s.audit_id = a.id WHERE a.id <= $1 ORDER BY a.id DESC LIMIT 1', [lo]);
  const start: Link = before ? { id: Number(before.id), hash: before.hash ?? Buffer.alloc(0) } : { id: 0, hash: genesisHash(key) };
  const prevHash = Buffer.alloc(32);
  start.hash.copy(prevHash, 0, 0, 32);
  let prevId = start.id;
  let checked = 0;
  // The first problem the walk itself sees, at the count of rows checked before it; the
  // workers may still report a link mismatch on an earlier row.
  let found: { at: number; problem?: ChainProblem; suspect?: Suspect } | undefined;
  let mismatch: { at: number; suspect: Suspect } | undefined;
  const finish = (at: number, outcome: { problem?: ChainProblem; suspect?: Suspect }) => void (found = { at, ...outcome });

  // The batch being filled (records for the workers, and each record's row and previous id),
  // in buffers shared with the workers and reused once their check has settled.
  let batch = hashes.take();
  let used = 0;
  let ids: number[] = [];
  let prevIds: number[] = [];
  let firstAt = 0;
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined; // a batch left unchecked must never pass as checked
  const socket = (client as unknown as { connection: { stream: { pause(): void; resume(): void } } }).connection.stream;
  const flush = () => {
    if (ids.length === 0) return;
    const sent = { ids, prevIds, firstAt, batch };
    const job = hashes
      .check({ shared: batch.buffer as SharedArrayBuffer, length: used, count: ids.length })
      .then(({ first, stored, prev }) => {
        if (first < 0 || (mismatch && mismatch.at <= sent.firstAt + first)) return;
        mismatch = {
          at: sent.firstAt + first,
          suspect: { id: sent.ids[first], hash: Buffer.from(stored!), prev: { id: sent.prevIds[first], hash: Buffer.from(prev!) } },
        };
      })
      .catch((error: unknown) => void (failure ??= { error }))
      .finally(() => {
        hashes.give(sent.batch);
        inFlight.delete(job);
        if (inFlight.size < BATCHES_IN_FLIGHT) socket.resume();
      });
    inFlight.add(job);
    if (inFlight.size >= BATCHES_IN_FLIGHT) socket.pause();
    batch = hashes.take();
    used = 0;
    ids = [];
    prevIds = [];
  };

  const onRow = (row: BinaryRow) => {
    if (found || mismatch || stopped()) return;
    const { data, start: at, length } = row;
    const id = readInt8(row, ID_FIELD);
    if (Number.isNaN(id)) throw new Error('Audit id beyond what verify-audit handles (2^53)');
    if (length[HASH_FIELD] === -1 || length[PREV_ID_FIELD] === -1) {
      return finish(checked, { problem: { kind: 'inserted', id: String(id), message: `row ${id} lies inside the sealed range but was never sealed` } });
    }
    // Beyond 2^53 the value is rounded, still unequal to and on the same side of every safe id.
    const claimed = data.readInt32BE(at[PREV_ID_FIELD]) * 4_294_967_296 + data.readUInt32BE(at[PREV_ID_FIELD] + 4);
    if (claimed !== prevId) {
      if (claimed > prevId && claimed < id) {
        return finish(checked, { problem: { kind: 'removed', id: String(claimed), message: `row ${claimed} (sealed between ${prevId} and ${id}) has been removed` } });
      }
      return finish(checked, { problem: { kind: 'altered', id: String(id), message: `row ${id} has been altered (its chain link was changed)` } });
    }
    const hashAt = at[HASH_FIELD];
    const hashLength = length[HASH_FIELD];
    if (id !== trusted) {
      const room = RECORD_HEAD + INNER_BLOCK + 32 + payloadRoom(data);
      if (used + room > batch.length) {
        flush();
        if (room > batch.length) {
          hashes.give(batch);
          batch = hashes.take(room);
        }
      }
      const end = hashLength === 32 ? writeChainPayload(row, batch, used + RECORD_HEAD + INNER_BLOCK + 32) : -1;
      if (end < 0) {
        const suspect = { id, hash: Buffer.from(data.subarray(hashAt, hashAt + hashLength)), prev: { id: prevId, hash: Buffer.from(prevHash) } };
        return finish(checked, { suspect });
      }
      batch.writeUInt32LE(end - used - RECORD_HEAD, used);
      copyBytes(data, hashAt, batch, used + 4, 32);
      copyBytes(hashes.inner, 0, batch, used + RECORD_HEAD, INNER_BLOCK);
      copyBytes(prevHash, 0, batch, used + RECORD_HEAD + INNER_BLOCK, 32);
      if (ids.length === 0) firstAt = checked;
      ids.push(id);
      prevIds.push(prevId);
      used = end;
    }
    const checkpoint = checkpoints.get(id);
    if (checkpoint) {
      if (checkpoint.length !== 32 || !sameBytes(checkpoint, data, hashAt)) {
        return finish(checked, { problem: { kind: 'altered', id: String(id), message: `row ${id} does not match the checkpoint taken when it was sealed` } });
      }
      checkpoints.delete(id);
    }
    copyBytes(data, hashAt, prevHash, 0, 32);
    prevId = id;
    checked += 1;
  };

  try {
    await copyBinaryRows(
      client,
      `SELECT ${BINARY_CHAIN_COLUMNS} FROM audit a LEFT JOIN audit_seals s ON s.audit_id = a.id AND s.audit_id > ${lo} AND s.audit_id <= ${hi}
       WHERE a.id > ${lo} AND a.id <= ${hi} ORDER BY a.id`,
      BINARY_CHAIN_FIELDS,
      onRow,
    );
    flush();
  } finally {
    await Promise.allSettled(inFlight);
    hashes.give(batch); // flushed or never sent: free for the next range
    socket.resume();
  }
  if (failure) throw failure.error;
  const last = { id: prevId, hash: Buffer.from(prevHash) };
  if (mismatch && (!found || mismatch.at <= found.at)) return { checked: mismatch.at, last, suspect: mismatch.suspect };
  if (found) return { checked: found.at, last, problem: found.problem, suspect: found.suspect };
  return { checked, last };
}

/** A few bytes copied in a loop: Buffer.copy's checks cost more than the copy at this size (4 per row). */
function copyBytes(from: Buffer, at: number, to: Buffer, offset: number, length: number): void {
  for (let i = 0; i < length; i++) to[offset + i] = from[at + i];
}

function sameBytes(expected: Buffer, data: Buffer, at: number): boolean {
  for (let i = 0; i < 32; i++) if (expected[i] !== data[at + i]) return false;
  return true;
}

/** The definition of a link is chainLink over the row's columns: asked before a mismatch is reported. */
async function sealedAsWritten(client: ClientBase, key: Buffer, suspect: Suspect): Promise<boolean> {
  const { rows: [full] } = await client.query<ChainRow>(`SELECT ${CHAIN_COLUMNS} FROM audit a WHERE a.id = $1`, [suspect.id]);
  return chainLink(key, suspect.prev.hash, String(suspect.prev.id), full).equals(suspect.hash);
}
