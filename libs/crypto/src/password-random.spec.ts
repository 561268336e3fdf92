import { randomIndex, shuffle } from './password-random';

function bytesFrom(values: number[]): (n: number) => Buffer {
  let next = 0;
  return (n) => Buffer.from(values.slice(next, (next += n)));
}

describe('randomIndex', () => {
  it('redraws values above the last whole multiple of n instead of folding them', () => {
    // 256 % 10 = 6, so 250..255 would make 0..5 more likely; 255 is redrawn.
    expect(randomIndex(10, bytesFrom([255, 3]))).toBe(3);
    expect(randomIndex(10, bytesFrom([249]))).toBe(9);
  });

  it('maps every byte value to each index equally often', () => {
    const counts = [0, 0, 0];
    for (let byte = 0; byte < 256; byte++) {
      try {
        counts[randomIndex(3, bytesFrom([byte]))]++;
      } catch {
        // 255 is rejected and this source has nothing more to give.
      }
    }
    expect(counts).toEqual([85, 85, 85]);
  });

  it('uses two bytes above 256 and none for n = 1', () => {
    expect(randomIndex(300, bytesFrom([1, 0]))).toBe(256);
    expect(randomIndex(1, () => {
      throw new Error('not called');
    })).toBe(0);
  });

  it('refuses a broken random source', () => {
    expect(() => randomIndex(10, () => Buffer.alloc(0))).toThrow('Random source returned 0 bytes, 1 requested');
    expect(() => randomIndex(10, () => Buffer.from([255]))).toThrow('Random source keeps returning out-of-range values');
    expect(() => randomIndex(0)).toThrow(RangeError);
  });

  it('stays in range with the real CSPRNG', () => {
    for (let i = 0; i < 1000; i++) {
      const value = randomIndex(7);
      expect(value >= 0 && value < 7).toBe(true);
    }
  });
});

describe('shuffle', () => {
  it('returns a permutation of its input', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    expect([...shuffle([...items])].sort((a, b) => a - b)).toEqual(items);
  });
});
