import { DataSource } from 'typeorm';

/**
 * Which tables committed writes, counted by row-level triggers installed on every table of
 * the (throwaway) test database. Cheap enough to read after every request, and exact: a
 * rolled-back transaction rolls its counts back too, so equal counts before and after a
 * request mean it committed no write.
 */
export class WriteCounter {
  constructor(
    private readonly dataSource: DataSource,
    /** Tables a refused request may legitimately write, each with its reason at the caller. */
    private readonly ignored: string[] = [],
    /**
     * Tables whose rows background work updates in its own time (the row of a discovery job
     * an earlier request started): only their inserts and deletes are counted.
     */
    private readonly backgroundUpdates: string[] = [],
  ) {}

  async install(): Promise<void> {
    const tables: { name: string }[] = await this.dataSource.query(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('migrations', 'fuzz_writes')`,
    );
    await this.dataSource.query(`CREATE TABLE IF NOT EXISTS fuzz_writes (t text PRIMARY KEY, n bigint NOT NULL DEFAULT 0)`);
    await this.dataSource.query(`
      CREATE OR REPLACE FUNCTION fuzz_count_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO fuzz_writes (t, n) VALUES (TG_TABLE_NAME, 1) ON CONFLICT (t) DO UPDATE SET n = fuzz_writes.n + 1;
        RETURN NULL;
      END $$`);
    for (const { name } of tables.filter((t) => !this.ignored.includes(t.name))) {
      await this.dataSource.query(`DROP TRIGGER IF EXISTS fuzz_count ON "${name}"`);
      const events = this.backgroundUpdates.includes(name) ? 'INSERT OR DELETE' : 'INSERT OR UPDATE OR DELETE';
      await this.dataSource.query(`CREATE TRIGGER fuzz_count AFTER ${events} ON "${name}" FOR EACH ROW EXECUTE FUNCTION fuzz_count_write()`);
    }
  }

  async take(): Promise<Map<string, string>> {
    const rows: { t: string; n: string }[] = await this.dataSource.query(`SELECT t, n FROM fuzz_writes`);
    return new Map(rows.map((r) => [r.t, r.n]));
  }
}

/** Tables written between two readings. */
export function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after.keys()].filter((t) => before.get(t) !== after.get(t));
}
