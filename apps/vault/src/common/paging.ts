/**
 * PAM360's list paging (STARTINDEX/LIMIT, startIndex/limit): a 0-based offset into the
 * whole ordered list, as GET /audit reads STARTINDEX, and at most `limit` entries (all when
 * absent). totalRows stays the number of entries matching, not the page's length.
 */
export function pageOf<T>(rows: T[], startIndex: number | undefined, limit: number | undefined): T[] {
  const from = startIndex ?? 0;
  return rows.slice(from, limit === undefined ? undefined : from + limit);
}

/** SEARCHVALUE as an ILIKE pattern matching it anywhere, its wildcards taken literally. */
export function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
