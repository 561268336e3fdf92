/** Rows changed by an UPDATE or DELETE: TypeORM's postgres driver answers [rows, affected] for those. */
export function affected(result: unknown): number {
  return Array.isArray(result) && result.length === 2 && typeof result[1] === 'number' ? result[1] : 0;
}
