import { chainPayload, ChainRow } from './audit-chain';
import { BinaryRow } from '@app/persistence';
import { BINARY_CHAIN_FIELDS, writeChainPayload } from './chain-payload-binary';

const INT8 = new Set(['id', 'prev']);
const INT4 = new Set(['org_id', 'actor_id', 'resource_id', 'account_id', 'request_id']);
const ORDER = ['id', 'prev', 'at', 'org_id', 'category', 'operation', 'outcome', 'actor_id', 'actor_name', 'ip', 'client', 'resource_id',
  'resource_name', 'account_id', 'account_name', 'target', 'reason', 'ticket_id', 'request_id', 'description'];

/** The row as PostgreSQL's binary COPY sends it: hash, then the payload columns. */
function binaryRow(prevId: string, row: ChainRow): BinaryRow {
  const values: Record<string, string | null> = { ...row, prev: prevId };
  const parts: (Buffer | null)[] = [Buffer.alloc(32)];
  for (const name of ORDER) {
    const value = values[name];
    if (value === null) parts.push(null);
    else if (INT8.has(name)) parts.push(int8(BigInt(value)));
    else if (name === 'at') parts.push(int8(BigInt(value) - 946_684_800_000_000n));
    else if (INT4.has(name)) parts.push(Buffer.from(new Int32Array([Number(value)]).buffer).reverse());
    else parts.push(Buffer.from(value, 'utf8'));
  }
  const data = Buffer.concat(parts.filter((p): p is Buffer => p !== null));
  const start = new Int32Array(BINARY_CHAIN_FIELDS);
  const length = new Int32Array(BINARY_CHAIN_FIELDS);
  let at = 0;
  parts.forEach((p, i) => {
    start[i] = at;
    length[i] = p === null ? -1 : p.length;
    at += p?.length ?? 0;
  });
  return { data, start, length };
}

function int8(value: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(value);
  return b;
}

const row: ChainRow = {
  id: '42', at: '1795242213434000', org_id: '1', category: 'Resource', operation: 'Password Retrieved', outcome: 'Success',
  actor_id: '-7', actor_name: 'alice', ip: '10.0.0.1', client: 'curl', resource_id: '2147483647', resource_name: 'db', account_id: null,
  account_name: 'root', target: '', reason: 'ticket 9', ticket_id: '', request_id: null, description: '',
};

describe('chain payload from binary COPY rows', () => {
  it.each([
    ['plain', row],
    ['escapes', { ...row, reason: 'a"b\\c\n\r\t\b\f\u0001\u001f\u007f é 😀 \u2028 </script> null', description: '\\u0041' }],
    ['before 1970, large ids', { ...row, id: '9007199254740991', at: '-86400000001', org_id: '-2147483648' }],
  ])('writes exactly chainPayload (%s)', (_, r) => {
    const out = Buffer.alloc(4096);
    const end = writeChainPayload(binaryRow('41', r), out, 32);
    expect(out.subarray(32, end).toString('utf8')).toBe(chainPayload('41', r));
  });

  it('leaves values beyond 2^53 to the slow check', () => {
    expect(writeChainPayload(binaryRow('41', { ...row, id: '9007199254740993' }), Buffer.alloc(4096), 32)).toBe(-1);
  });
});
