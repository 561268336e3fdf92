import { randomBytes } from 'node:crypto';

/** Returns n random bytes; node:crypto randomBytes unless a test injects its own. */
export type RandomBytes = (n: number) => Buffer;

const MAX_ATTEMPTS = 1000;

/**
 * A uniform integer in [0, n) by rejection sampling: draws below the largest multiple of
 * n that fits in the byte range are kept, the rest are redrawn, so there is no modulo bias.
 */
export function randomIndex(n: number, random: RandomBytes = randomBytes): number {
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError(`randomIndex needs 1 <= n <= 2^32, got ${n}`);
  if (n === 1) return 0;
  let byteCount = 1;
  while (256 ** byteCount < n) byteCount++;
  const range = 256 ** byteCount;
  const limit = range - (range % n);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const bytes = random(byteCount);
    if (bytes.length < byteCount) throw new Error(`Random source returned ${bytes.length} bytes, ${byteCount} requested`);
    const value = bytes.readUIntBE(0, byteCount);
    if (value < limit) return value % n;
  }
  throw new Error('Random source keeps returning out-of-range values');
}

export function randomElement<T>(items: readonly T[], random?: RandomBytes): T {
  return items[randomIndex(items.length, random)];
}

/** Fisher-Yates shuffle in place. */
export function shuffle<T>(items: T[], random?: RandomBytes): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomIndex(i + 1, random);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}
