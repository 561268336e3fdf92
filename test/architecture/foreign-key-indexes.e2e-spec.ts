import { Client } from 'pg';
import { createTestDatabase } from '../support/database';

// Deleting a row runs one query per foreign key that references its table, once per deleted
// row; without an index on the referencing column each reads the whole referencing table
// (migration ForeignKeyIndexes: deleting 300 resources took 11 s on 60,000 accounts). Every
// foreign key of the migrated schema has an index led by its columns, or is named here with
// the reason a scan per deletion costs nothing that matters.
const UNINDEXED: Record<string, string> = {
  'certificate_authorities.org_id': 'deleted with its organisation: one scan per organisation',
  'csrs.org_id': 'deleted with its organisation: one scan per organisation',
  'acme_eab_keys.org_id': 'deleted with its organisation: one scan per organisation',
  'acme_accounts.org_id': 'deleted with its organisation: one scan per organisation',
  'rotation_schedules.org_id': 'deleted with its organisation: one scan per organisation',
  'rotation_runs.org_id': 'deleted with its organisation: one scan per organisation',
  'rotation_events.org_id': 'deleted with its organisation: one scan per organisation',
  'directories.resource_id': 'one row per organisation',
  'certificate_authorities.parent_id': 'a handful of authorities per organisation, rarely deleted',
  'acme_eab_keys.ca_id': 'an authority is rarely deleted: one scan each',
  'acme_accounts.ca_id': 'an authority is rarely deleted: one scan each',
  'ca_allowed_names.ca_id': 'an authority is rarely deleted: one scan each',
  'certificate_field_values.field_id': 'an additional certificate field is rarely deleted: one scan each',
  'csrs.created_by': 'names a user: one scan per user deleted',
  'rotation_schedules.updated_by': 'names a user: one scan of a small table per user deleted',
  'organization_access.granted_by': 'names a user: one scan of a small table per user deleted',
};

describe('foreign keys and their indexes', () => {
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: await createTestDatabase() });
    await db.connect();
  });
  afterAll(() => db.end());

  it('every foreign key is indexed on its columns, or named with its reason', async () => {
    const { rows } = await db.query<{ fk: string }>(`
      SELECT c.conrelid::regclass::text || '.' || string_agg(a.attname, ',' ORDER BY k.ord) AS fk
      FROM pg_constraint c
      CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
      WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid
                        AND (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] = c.conkey)
      GROUP BY c.oid, c.conrelid`);
    expect(rows.map((r) => r.fk).sort()).toEqual(Object.keys(UNINDEXED).sort());
  });

  it('the partial indexes serve the referential look-ups of a deleted account (col = $1 implies NOT NULL)', async () => {
    await db.query('SET enable_seqscan = off');
    // The referential queries are prepared once and run with the key as a parameter.
    await db.query('SET plan_cache_mode = force_generic_plan');
    for (const [table, column, index] of [
      ['accounts', 'dual_current_id', 'accounts_dual_current'],
      ['shares', 'account_id', 'shares_account'],
      ['access_controls', 'account_id', 'access_controls_account'],
      ['custom_fields', 'account_id', 'custom_fields_account'],
      ['stored_files', 'account_id', 'stored_files_account'],
    ]) {
      await db.query(`PREPARE lookup (int) AS SELECT 1 FROM ${table} WHERE ${column} = $1`);
      const { rows } = await db.query('EXPLAIN EXECUTE lookup(1)');
      await db.query('DEALLOCATE lookup');
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain(` ${index} `);
    }
  });
});
