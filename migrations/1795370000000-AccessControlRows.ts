import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 14: "is this account under access control?" answered from the account and resource
 * rows the password read already reads, so its quick decision opens access_controls no more.
 *
 * - accounts.access_control_rows: access_controls rows naming this account;
 *   resources.access_control_rows: rows for the whole resource (account_id NULL).
 *   An account is under access control when either is above zero (underAccessControlSql).
 * - Each access_controls insert, delete or update moves the count of the one row it names
 *   by one, as `SET n = n + 1`: under READ COMMITTED an UPDATE that waited on a concurrent
 *   one re-evaluates its SET on the newest row version, so no change is lost, and the row
 *   named exists (foreign keys), so no count is missed. (The unique indexes allow one row
 *   per account and one whole-resource row per resource, so a count is 0 or 1, and writers
 *   of one target already wait on each other there.) A new account starts at zero: nothing
 *   can name it yet, and whole-resource rows count on the resource.
 * - A count going below zero is an error rather than a silent repair; TRUNCATE (no row
 *   triggers) resets every count.
 *
 * test/gate/access-control-rows.e2e-spec.ts holds the counts against access_controls after
 * random and concurrent changes.
 */
export class AccessControlRows1795370000000 implements MigrationInterface {
  name = 'AccessControlRows1795370000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts ADD COLUMN access_control_rows integer NOT NULL DEFAULT 0 CHECK (access_control_rows >= 0)`);
    await q.query(`ALTER TABLE resources ADD COLUMN access_control_rows integer NOT NULL DEFAULT 0 CHECK (access_control_rows >= 0)`);
    await q.query(`UPDATE accounts a SET access_control_rows = x.n
      FROM (SELECT account_id, count(*) AS n FROM access_controls WHERE account_id IS NOT NULL GROUP BY account_id) x WHERE x.account_id = a.id`);
    await q.query(`UPDATE resources r SET access_control_rows = x.n
      FROM (SELECT resource_id, count(*) AS n FROM access_controls WHERE account_id IS NULL GROUP BY resource_id) x WHERE x.resource_id = r.id`);
    await q.query(`CREATE FUNCTION access_control_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          UPDATE accounts SET access_control_rows = 0 WHERE access_control_rows <> 0;
          UPDATE resources SET access_control_rows = 0 WHERE access_control_rows <> 0;
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          IF OLD.account_id IS NULL THEN
            UPDATE resources SET access_control_rows = access_control_rows - 1 WHERE id = OLD.resource_id;
          ELSE
            UPDATE accounts SET access_control_rows = access_control_rows - 1 WHERE id = OLD.account_id;
          END IF;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          IF NEW.account_id IS NULL THEN
            UPDATE resources SET access_control_rows = access_control_rows + 1 WHERE id = NEW.resource_id;
          ELSE
            UPDATE accounts SET access_control_rows = access_control_rows + 1 WHERE id = NEW.account_id;
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER access_control_rows AFTER INSERT OR DELETE OR UPDATE OF resource_id, account_id ON access_controls
      FOR EACH ROW EXECUTE FUNCTION access_control_rows_changed()`);
    await q.query(`CREATE TRIGGER access_control_rows_truncate AFTER TRUNCATE ON access_controls
      FOR EACH STATEMENT EXECUTE FUNCTION access_control_rows_changed()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER access_control_rows_truncate ON access_controls');
    await q.query('DROP TRIGGER access_control_rows ON access_controls');
    await q.query('DROP FUNCTION access_control_rows_changed()');
    await q.query('ALTER TABLE resources DROP COLUMN access_control_rows');
    await q.query('ALTER TABLE accounts DROP COLUMN access_control_rows');
  }
}
