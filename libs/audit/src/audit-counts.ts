import { DataSource } from 'typeorm';

const HOUR_MS = 3_600_000;

/**
 * One statement, so one snapshot: the sealer moves the head and the counts together, rows at
 * or below the head are either in whole counted hours or on an edge counted from the index,
 * and rows above the head (sealed in the next few seconds) are counted from the primary key.
 * $9 is the head read just before: a value the planner can see (so it picks the primary key
 * for that small range), while the head of this snapshot keeps the sum exact.
 */
const TOTAL = `WITH head AS (SELECT COALESCE((SELECT last_id FROM audit_chain WHERE id = 1), 0) AS id)
  SELECT (
    COALESCE((SELECT sum(c.rows) FROM audit_counts c WHERE c.org_id = $1 AND c.category = $2 AND c.hour >= $5 AND c.hour < $6), 0)
    + (SELECT count(*) FROM audit a, head WHERE a.org_id = $1 AND a.category = $2 AND a.created_at >= $3 AND a.created_at < $7 AND a.id <= head.id)
    + (SELECT count(*) FROM audit a, head WHERE a.org_id = $1 AND a.category = $2 AND a.created_at >= $8 AND a.created_at < $4 AND a.id <= head.id)
    + (SELECT count(*) FROM audit a, head WHERE a.id > $9 AND a.id > head.id AND a.org_id = $1 AND a.category = $2 AND a.created_at >= $3 AND a.created_at < $4)
  )::text AS n`;

/**
 * The exact number of audit rows of one organisation and category with from <= created_at < to
 * (null: unbounded), without counting the range: whole hours come from audit_counts (kept by
 * the sealer), the partial hours at either edge from the (org_id, category, created_at, id) index.
 */
export async function countAuditRows(db: DataSource, orgId: number, category: string, from: Date | null, to: Date | null): Promise<number> {
  const firstHour = from === null ? Number.MIN_SAFE_INTEGER : Math.ceil(from.getTime() / HOUR_MS);
  const endHour = to === null ? Number.MAX_SAFE_INTEGER : Math.floor(to.getTime() / HOUR_MS);
  const lower = from ?? '-infinity';
  const upper = to ?? 'infinity';
  // With no whole hour inside the range the leading edge is the range itself.
  const whole = firstHour < endHour;
  const leadEnd = whole ? (from === null ? '-infinity' : new Date(firstHour * HOUR_MS)) : upper;
  const tailStart = whole ? (to === null ? 'infinity' : new Date(endHour * HOUR_MS)) : upper;
  const [head] = await db.query('SELECT last_id::text AS id FROM audit_chain WHERE id = 1');
  const bounds = [lower, upper, String(firstHour), whole ? String(endHour) : String(firstHour), leadEnd, tailStart];
  const [row] = await db.query(TOTAL, [orgId, category, ...bounds, head?.id ?? '0']);
  return Number(row.n);
}
