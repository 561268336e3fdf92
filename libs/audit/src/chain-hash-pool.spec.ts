import { createHmac, randomBytes } from 'node:crypto';
import { ChainHashPool, firstMismatch, hmacBlocks } from './chain-hash-pool';

/** Records as the verifier writes them: [n][stored link][inner block][previous link][payload]. */
function records(key: Buffer, rows: { prev: Buffer; payload: Buffer; stored?: Buffer }[]): Buffer {
  const { inner } = hmacBlocks(key);
  return Buffer.concat(
    rows.flatMap(({ prev, payload, stored }) => {
      const n = Buffer.alloc(4);
      n.writeUInt32LE(64 + 32 + payload.length);
      return [n, stored ?? createHmac('sha256', key).update(prev).update(payload).digest(), inner, prev, payload];
    }),
  );
}

describe('link HMACs from key blocks', () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ prev: randomBytes(32), payload: randomBytes(i * 37) }));

  it.each([16, 32, 64, 65, 200])('equal createHmac for a %i-byte key', (size) => {
    const key = randomBytes(size);
    expect(firstMismatch(records(key, rows), rows.length, hmacBlocks(key).outer)).toEqual({ first: -1, offset: expect.any(Number) });
  });

  it('name the first record whose stored link differs', () => {
    const key = randomBytes(32);
    const tampered = rows.map((r, i) => (i === 7 || i === 12 ? { ...r, stored: randomBytes(32) } : r));
    expect(firstMismatch(records(key, tampered), rows.length, hmacBlocks(key).outer).first).toBe(7);
  });

  it('are checked by the worker threads, which answer with the stored and previous links', async () => {
    const key = randomBytes(32);
    const pool = new ChainHashPool(key, 2);
    try {
      const data = records(key, rows.map((r, i) => (i === 3 ? { ...r, stored: Buffer.alloc(32, 9) } : r)));
      const shared = new SharedArrayBuffer(data.length);
      data.copy(Buffer.from(shared));
      const result = await pool.check({ shared, length: data.length, count: rows.length });
      expect(result.first).toBe(3);
      expect(Buffer.from(result.stored!)).toEqual(Buffer.alloc(32, 9));
      expect(Buffer.from(result.prev!)).toEqual(rows[3].prev);
      expect((await pool.check({ shared, length: data.length, count: 3 })).first).toBe(-1);
    } finally {
      await pool.close();
    }
  });

  it('reject the checks in flight when a worker fails', async () => {
    const pool = new ChainHashPool(randomBytes(32), 1);
    try {
      await expect(pool.check({ shared: new SharedArrayBuffer(2), length: 2, count: 1 })).rejects.toThrow('outside buffer bounds');
    } finally {
      await pool.close();
    }
  });
});
