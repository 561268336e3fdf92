/**
 * Slows down repeated failed authentication from one address: after FREE failures in the
 * window, each further failure waits longer (up to MAX_DELAY). Per instance, in memory.
 */
const WINDOW_MS = 60_000;
const FREE = 5;
const STEP_MS = 250;
const MAX_DELAY_MS = 5_000;
const MAX_TRACKED = 10_000;

export class FailedAuthThrottle {
  private failures = new Map<string, { count: number; since: number }>();

  /** Records a failure and returns how long to hold the answer, ms. */
  fail(ip: string, now = Date.now()): number {
    let entry = this.failures.get(ip);
    if (!entry || now - entry.since > WINDOW_MS) {
      if (this.failures.size >= MAX_TRACKED) this.prune(now);
      entry = { count: 0, since: now };
      this.failures.set(ip, entry);
    }
    entry.count += 1;
    return entry.count <= FREE ? 0 : Math.min(MAX_DELAY_MS, (entry.count - FREE) * STEP_MS);
  }

  failuresOf(ip: string): number {
    return this.failures.get(ip)?.count ?? 0;
  }

  private prune(now: number): void {
    for (const [ip, entry] of this.failures) if (now - entry.since > WINDOW_MS) this.failures.delete(ip);
    if (this.failures.size >= MAX_TRACKED) this.failures.clear();
  }
}
