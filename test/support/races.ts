import { Client } from 'pg';
import { DataSource } from 'typeorm';

// Helpers for the tests that race writers against each other and for seeded-random change
// sequences, shared by the tests of the trigger-kept tables and copies (test/gate).

/** A small deterministic generator (mulberry32): the same steps on every run. */
export function seededRandom(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)], below: (n: number): number => Math.floor(next() * n) };
}

/**
 * Lets a writer on `client` get as far as it can: until it waits on a lock or `waiting`
 * settles. The test then lets the earlier writer commit, so the outcome never depends on
 * which connection PostgreSQL happens to serve first.
 */
export async function untilBlockedOrDone(ds: DataSource, waiting: Promise<unknown>, client: Client): Promise<void> {
  const pid = (client as unknown as { processID: number }).processID;
  let done = false;
  void waiting.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 200 && !done; i++) {
    const [row] = await ds.query('SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1', [pid]);
    if (row?.wait_event_type === 'Lock') return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Commits `client`'s transaction once `statement` has finished (writers whose order PostgreSQL picks). */
export async function commitWhenDone(client: Client, statement: Promise<unknown>): Promise<void> {
  await statement;
  await client.query('COMMIT');
}
