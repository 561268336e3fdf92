import { createHmac } from 'node:crypto';
import { ClientBase } from 'pg';
import { BinaryRow, copyBinaryRows } from '@app/persistence';
import { CHAIN_COLUMNS, chainLink, ChainRow } from './audit-chain';
import { BINARY_CHAIN_FIELDS, binaryChainColumns, ID_FIELD, payloadRoom, readInt8, writeChainPayload } from './chain-payload-binary';

/** The links of the rows linked, in id order. */
export interface LinkedRows {
  ids: string[];
  hashes: Buffer[];
  /** Whether rows up to the bound may be left (the batch was full or ended early). */
  more: boolean;
}

/**
 * Links the audit rows after `lastId` up to `bound` (at most `limit` of them) onto the chain
 * whose head is `lastHash`. PostgreSQL sends the columns as a binary COPY and node writes each
 * payload with the verifier's writer (chain-payload-binary.ts): building the text in SQL cost
 * PostgreSQL about 11 µs a row, on every audited request. A row that writer cannot write
 * exactly (a value beyond 2^53) ends the batch there and is linked by chainLink over its text,
 * the definition both paths follow. Runs on the caller's connection, inside its transaction.
 */
export async function linkRows(client: ClientBase, key: Buffer, lastId: string, lastHash: Buffer, bound: string, limit: number): Promise<LinkedRows> {
  const ids: string[] = [];
  const hashes: Buffer[] = [];
  let prevHash = lastHash;
  let prevId = lastId;
  let read = 0;
  let slow: string | undefined; // the first row left to chainLink; the rows after it wait for the next batch
  let scratch = Buffer.alloc(4096);
  const onRow = (row: BinaryRow) => {
    read++;
    if (slow !== undefined) return;
    const id = readInt8(row, ID_FIELD);
    const room = payloadRoom(row.data);
    if (scratch.length < room) scratch = Buffer.alloc(room);
    const end = Number.isNaN(id) ? -1 : writeChainPayload(row, scratch, 0);
    if (end < 0) {
      slow = rowId(row);
      return;
    }
    prevHash = createHmac('sha256', key).update(prevHash).update(scratch.subarray(0, end)).digest();
    prevId = String(id);
    ids.push(prevId);
    hashes.push(prevHash);
  };
  // COPY takes no parameters: the ids are the chain's and the sequence's own, checked as digits.
  const [after, upTo] = [digits(lastId), digits(bound)];
  await copyBinaryRows(
    client,
    `SELECT ${binaryChainColumns('NULL::bytea', `coalesce(lag(a.id) OVER (ORDER BY a.id), ${after})`)}
     FROM audit a WHERE a.id > ${after} AND a.id <= ${upTo} ORDER BY a.id LIMIT ${limit}`,
    BINARY_CHAIN_FIELDS,
    onRow,
  );
  if (slow !== undefined) {
    const { rows: [row] } = await client.query<ChainRow>(`SELECT ${CHAIN_COLUMNS} FROM audit a WHERE a.id = $1`, [slow]);
    ids.push(row.id);
    hashes.push(chainLink(key, prevHash, prevId, row));
  }
  return { ids, hashes, more: read === limit || slow !== undefined };
}

/** The id of a binary row as decimal text, exact beyond 2^53. */
function rowId(row: BinaryRow): string {
  return row.data.readBigInt64BE(row.start[ID_FIELD]).toString();
}

function digits(id: string): string {
  if (!/^[0-9]{1,19}$/.test(id)) throw new Error(`Not an audit id: ${id}`);
  return id;
}
