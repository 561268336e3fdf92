import { BACKGROUND_WAIT_SECONDS, defaultWaitMs, INLINE_WAIT_SECONDS } from './discovery-limits';

describe('the default discovery wait (no WAIT in the request)', () => {
  it('answers a single host inline, whatever it takes', () => {
    expect(defaultWaitMs(1)).toBe(Number.POSITIVE_INFINITY);
  });

  it('waits for a typical range up to a /24, long enough for a /24 at the default timeout', () => {
    expect(defaultWaitMs(254)).toBe(INLINE_WAIT_SECONDS * 1000);
    expect(defaultWaitMs(256)).toBe(INLINE_WAIT_SECONDS * 1000);
    // 254 addresses, 64 at a time, all timing out at the default 5 s: 4 rounds, 20 s.
    expect(INLINE_WAIT_SECONDS).toBeGreaterThanOrEqual(Math.ceil(254 / 64) * 5 * 2);
  });

  it('sends larger lists to the background quickly', () => {
    expect(defaultWaitMs(257)).toBe(BACKGROUND_WAIT_SECONDS * 1000);
    expect(defaultWaitMs(1024)).toBe(BACKGROUND_WAIT_SECONDS * 1000);
  });
});
