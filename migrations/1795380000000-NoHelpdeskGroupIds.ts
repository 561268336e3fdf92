import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 14: the help-desk rule (NoHelpDeskRetrieval, op 50) asks whether a resource belongs
 * to one of its organisation's groups marked "no help-desk retrieval". The marked groups'
 * ids are kept on the organisation's row (organizations.no_helpdesk_group_ids), so the
 * password read, which has read that row, probes resource_group_membership alone and opens
 * resource_groups no more: with it the read's statement fits the 16 relation locks a
 * PostgreSQL backend takes without the shared lock table.
 *
 * The trigger moves one id per group change, with array_append / array_remove on the
 * organisation's row: under READ COMMITTED an UPDATE that waited on a concurrent one
 * re-evaluates its SET on the newest row version, so concurrent changes of several groups
 * all land, and the group's own row lock orders changes of one group. TRUNCATE (no row
 * triggers) empties the arrays. test/gate/caller-gate-columns.e2e-spec.ts holds the arrays
 * against resource_groups after random and concurrent changes. The partial index on marked
 * groups, which the probe's join used, goes: nothing reads it now.
 */
export class NoHelpdeskGroupIds1795380000000 implements MigrationInterface {
  name = 'NoHelpdeskGroupIds1795380000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations ADD COLUMN no_helpdesk_group_ids integer[] NOT NULL DEFAULT '{}'`);
    await q.query(`UPDATE organizations o SET no_helpdesk_group_ids = g.ids
      FROM (SELECT org_id, array_agg(id ORDER BY id) AS ids FROM resource_groups WHERE no_helpdesk_retrieval GROUP BY org_id) g WHERE g.org_id = o.id`);
    await q.query(`CREATE FUNCTION no_helpdesk_group_ids_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          UPDATE organizations SET no_helpdesk_group_ids = '{}' WHERE no_helpdesk_group_ids <> '{}';
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.no_helpdesk_retrieval THEN
          UPDATE organizations SET no_helpdesk_group_ids = array_remove(no_helpdesk_group_ids, OLD.id) WHERE id = OLD.org_id;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.no_helpdesk_retrieval THEN
          UPDATE organizations SET no_helpdesk_group_ids = array_append(no_helpdesk_group_ids, NEW.id) WHERE id = NEW.org_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER resource_groups_no_helpdesk_ids AFTER INSERT OR DELETE ON resource_groups
      FOR EACH ROW EXECUTE FUNCTION no_helpdesk_group_ids_changed()`);
    // An update moves the id only when the flag (or the group's organisation or id) changes.
    await q.query(`CREATE TRIGGER resource_groups_no_helpdesk_ids_update AFTER UPDATE ON resource_groups FOR EACH ROW
      WHEN (OLD.no_helpdesk_retrieval IS DISTINCT FROM NEW.no_helpdesk_retrieval OR OLD.org_id IS DISTINCT FROM NEW.org_id OR OLD.id IS DISTINCT FROM NEW.id)
      EXECUTE FUNCTION no_helpdesk_group_ids_changed()`);
    await q.query(`CREATE TRIGGER resource_groups_no_helpdesk_ids_truncate AFTER TRUNCATE ON resource_groups
      FOR EACH STATEMENT EXECUTE FUNCTION no_helpdesk_group_ids_changed()`);
    await q.query('DROP INDEX resource_groups_no_helpdesk');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX resource_groups_no_helpdesk ON resource_groups (id) WHERE no_helpdesk_retrieval');
    await q.query('DROP TRIGGER resource_groups_no_helpdesk_ids_truncate ON resource_groups');
    await q.query('DROP TRIGGER resource_groups_no_helpdesk_ids_update ON resource_groups');
    await q.query('DROP TRIGGER resource_groups_no_helpdesk_ids ON resource_groups');
    await q.query('DROP FUNCTION no_helpdesk_group_ids_changed()');
    await q.query('ALTER TABLE organizations DROP COLUMN no_helpdesk_group_ids');
  }
}
