import { createHmac, randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
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

  it.each([0, 31])('notice a stored link that differs in byte %i alone', (byte) => {
    const key = randomBytes(32);
    const stored = createHmac('sha256', key).update(rows[5].prev).update(rows[5].payload).digest();
    stored[byte] ^= 0x80;
    const tampered = rows.map((r, i) => (i === 5 ? { ...r, stored } : r));
    expect(firstMismatch(records(key, tampered), rows.length, hmacBlocks(key).outer).first).toBe(5);
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

  it('are checked in the pool\'s own buffers, sent to each worker once and named by number after', async () => {
    const key = randomBytes(32);
    const pool = new ChainHashPool(key, 2);
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      const batch = pool.take();
      const fill = (tamper: number) => records(key, rows.map((r, i) => (i === tamper ? { ...r, stored: Buffer.alloc(32, 7) } : r))).copy(batch);
      const check = () => pool.check({ shared: batch.buffer as SharedArrayBuffer, length: records(key, rows).length, count: rows.length });
      const results = [];
      for (const tamper of [-1, 4, 11, -1]) {
        fill(tamper);
        results.push((await check()).first);
      }
      expect(results).toEqual([-1, 4, 11, -1]);
      // Two workers: the first two messages carry the buffer, the next two only its number.
      expect(posted.mock.calls.map(([m]) => 'shared' in (m as object))).toEqual([true, true, false, false]);
      pool.give(batch);
      expect(pool.take()).toBe(batch);
    } finally {
      posted.mockRestore();
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
