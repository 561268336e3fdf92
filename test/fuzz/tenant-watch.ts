import { DataSource } from 'typeorm';

/** Tables that change on their own or on any request: the audit trail and its seals, counters, nonces, sessions. */
const VOLATILE = new Set([
  'audit', 'audit_chain', 'audit_checkpoints', 'audit_seals', 'audit_counts', 'failed_auth_sources', 'jobs', 'api_tokens',
  'acme_nonces', 'migrations', 'data_keys', 'backup_runs', 'console_sessions', 'fuzz_writes',
]);
/** References that join two organisations on purpose: a provider user granted access to another organisation. */
const CROSS_ORG_BY_DESIGN = new Set(['organization_access.user_id', 'organization_access.granted_by', 'organization_access.user_group_id']);

interface ForeignKey {
  table: string;
  column: string;
  parent: string;
  parentColumn: string;
}

/**
 * What one organisation holds, seen from the database's own catalog: every table's rows
 * whose organisation is that one (its org_id, or its parents' through foreign keys) or no
 * organisation (server-wide rows). Another organisation's requests must leave them as they
 * are, and no row may join two organisations.
 */
export class TenantWatch {
  private aliases = 0;

  private constructor(
    private readonly dataSource: DataSource,
    private readonly orgId: number,
    private readonly withOrg: Set<string>,
    private readonly keys: ForeignKey[],
    private readonly tables: string[],
  ) {}

  static async open(dataSource: DataSource, orgId: number): Promise<TenantWatch> {
    const tables: { name: string; has_org: boolean }[] = await dataSource.query(
      `SELECT c.relname AS name, EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped) AS has_org
       FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace ORDER BY 1`,
    );
    const keys: ForeignKey[] = await dataSource.query(
      `SELECT c.conrelid::regclass::text AS table, a.attname AS column, c.confrelid::regclass::text AS parent, pa.attname AS "parentColumn"
       FROM pg_constraint c
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = c.confkey[1]
       WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace AND cardinality(c.conkey) = 1 ORDER BY 1, 2`,
    );
    const withOrg = new Set(tables.filter((t) => t.has_org).map((t) => t.name));
    return new TenantWatch(dataSource, orgId, withOrg, keys, tables.map((t) => t.name).filter((t) => !VOLATILE.has(t)));
  }

  /** Per table, a digest of the watched organisation's rows and the server-wide ones. */
  async digest(): Promise<Map<string, string>> {
    const parts = this.tables.map((table) => {
      const org = this.orgOf(table, 'x');
      // A table no organisation reaches is server-wide as a whole.
      const where = org ? `WHERE (${org}) = $1 OR (${org}) IS NULL` : '';
      return `SELECT '${table}' AS t, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS d FROM "${table}" x ${where}`;
    });
    const rows: { t: string; d: string }[] = await this.dataSource.query(parts.join('\nUNION ALL\n'), [this.orgId]);
    return new Map(rows.map((r) => [r.t, r.d]));
  }

  /** Rows that join two organisations (a row of one naming another's object), as "table.column: n". */
  async crossLinks(): Promise<string[]> {
    const checks = this.keys
      .filter((k) => !VOLATILE.has(k.table) && !CROSS_ORG_BY_DESIGN.has(`${k.table}.${k.column}`) && k.parent !== 'organizations')
      .flatMap((k) => {
        const own = this.orgOf(k.table, 'x');
        const parent = this.orgOf(k.parent, 'p');
        if (!own || !parent) return [];
        const parentOrg = `(SELECT ${parent} FROM "${k.parent}" p WHERE p."${k.parentColumn}" = x."${k.column}")`;
        return [`SELECT '${k.table}.${k.column}' AS link, count(*)::int AS n FROM "${k.table}" x WHERE (${own}) IS NOT NULL AND ${parentOrg} <> (${own})`];
      });
    const rows: { link: string; n: number }[] = await this.dataSource.query(checks.join('\nUNION ALL\n'));
    return rows.filter((r) => r.n > 0).map((r) => `${r.link}: ${r.n}`);
  }

  /** The SQL naming the organisation of `alias`'s row: its org_id, else its parents' (the first one set). */
  private orgOf(table: string, alias: string, seen: string[] = []): string | undefined {
    if (table === 'organizations') return `${alias}.id`;
    if (this.withOrg.has(table)) return `${alias}.org_id`;
    const parents = this.keys
      .filter((k) => k.table === table && k.parent !== table && !seen.includes(k.parent))
      .flatMap((k) => {
        const p = `o${++this.aliases}`;
        const org = this.orgOf(k.parent, p, [...seen, table]);
        return org ? [`(SELECT ${org} FROM "${k.parent}" ${p} WHERE ${p}."${k.parentColumn}" = ${alias}."${k.column}")`] : [];
      });
    if (parents.length === 0) return undefined;
    return parents.length === 1 ? parents[0] : `COALESCE(${parents.join(', ')})`;
  }
}

/** Tables whose digest differs between two readings. */
export function changedDigests(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((t) => before.get(t) !== after.get(t));
}
