import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 14: what the gate asks about the caller, kept on the rows the password read already
 * reads (its token's user and organisation), so the read's statement no longer opens the
 * settings and user_group_members tables (each table and index a statement opens costs
 * PostgreSQL executor start-up and a relation lock, on every read).
 *
 * - organizations.reason_required / ticketing_enabled: the two gate settings, copied from the
 *   settings row by a trigger. The copy is the new row's value only (nothing else is read),
 *   and the settings row's lock orders writers of one key, so the last committed write wins
 *   on both rows alike.
 * - users.user_group_ids: the user's groups, kept from user_group_members by array_append and
 *   array_remove on the user's row. Under READ COMMITTED an UPDATE that waited on a concurrent
 *   one re-evaluates its SET on the newest row version, so concurrent membership changes of
 *   one user all land (an UPDATE recomputing the array from a subquery would read a stale
 *   snapshot and could drop one). (group_id, user_id) is the key of user_group_members, so
 *   an id is in the array at most once.
 * - TRUNCATE of either source table resets the copies (row triggers do not fire on it).
 * - A plain index on access_controls (resource_id): the look-up of the access control that
 *   applies to an account (its own row or its resource's) is one index scan instead of a
 *   BitmapOr over the two partial unique indexes.
 *
 * The copies are written only by these triggers; test/gate/caller-gate-columns.e2e-spec.ts
 * checks them against their sources after random changes, including concurrent ones.
 */
export class CallerGateColumns1795360000000 implements MigrationInterface {
  name = 'CallerGateColumns1795360000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations ADD COLUMN reason_required boolean NOT NULL DEFAULT false,
      ADD COLUMN ticketing_enabled boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE organizations o SET
      reason_required = coalesce((SELECT s.value = 'true'::jsonb FROM settings s WHERE s.org_id = o.id AND s.key = 'reason_required'), false),
      ticketing_enabled = coalesce((SELECT s.value = 'true'::jsonb FROM settings s WHERE s.org_id = o.id AND s.key = 'ticketing_enabled'), false)`);
    await q.query(`CREATE FUNCTION settings_gate_columns() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          UPDATE organizations SET reason_required = false, ticketing_enabled = false WHERE reason_required OR ticketing_enabled;
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE organizations SET
            reason_required = CASE WHEN OLD.key = 'reason_required' THEN false ELSE reason_required END,
            ticketing_enabled = CASE WHEN OLD.key = 'ticketing_enabled' THEN false ELSE ticketing_enabled END
          WHERE id = OLD.org_id AND OLD.key IN ('reason_required', 'ticketing_enabled');
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          UPDATE organizations SET
            reason_required = CASE WHEN NEW.key = 'reason_required' THEN NEW.value = 'true'::jsonb ELSE reason_required END,
            ticketing_enabled = CASE WHEN NEW.key = 'ticketing_enabled' THEN NEW.value = 'true'::jsonb ELSE ticketing_enabled END
          WHERE id = NEW.org_id AND NEW.key IN ('reason_required', 'ticketing_enabled');
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER settings_gate_columns AFTER INSERT OR UPDATE OR DELETE ON settings
      FOR EACH ROW EXECUTE FUNCTION settings_gate_columns()`);
    await q.query(`CREATE TRIGGER settings_gate_columns_truncate AFTER TRUNCATE ON settings
      FOR EACH STATEMENT EXECUTE FUNCTION settings_gate_columns()`);

    await q.query(`ALTER TABLE users ADD COLUMN user_group_ids integer[] NOT NULL DEFAULT '{}'`);
    await q.query(`UPDATE users u SET user_group_ids = m.ids
      FROM (SELECT user_id, array_agg(group_id ORDER BY group_id) AS ids FROM user_group_members GROUP BY user_id) m WHERE m.user_id = u.id`);
    await q.query(`CREATE FUNCTION user_group_ids_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          UPDATE users SET user_group_ids = '{}' WHERE user_group_ids <> '{}';
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE users SET user_group_ids = array_remove(user_group_ids, OLD.group_id) WHERE id = OLD.user_id;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          UPDATE users SET user_group_ids = array_append(user_group_ids, NEW.group_id) WHERE id = NEW.user_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER user_group_members_ids AFTER INSERT OR UPDATE OR DELETE ON user_group_members
      FOR EACH ROW EXECUTE FUNCTION user_group_ids_changed()`);
    await q.query(`CREATE TRIGGER user_group_members_ids_truncate AFTER TRUNCATE ON user_group_members
      FOR EACH STATEMENT EXECUTE FUNCTION user_group_ids_changed()`);

    await q.query('CREATE INDEX access_controls_resource ON access_controls (resource_id)');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX access_controls_resource');
    await q.query('DROP TRIGGER user_group_members_ids_truncate ON user_group_members');
    await q.query('DROP TRIGGER user_group_members_ids ON user_group_members');
    await q.query('DROP FUNCTION user_group_ids_changed()');
    await q.query('ALTER TABLE users DROP COLUMN user_group_ids');
    await q.query('DROP TRIGGER settings_gate_columns_truncate ON settings');
    await q.query('DROP TRIGGER settings_gate_columns ON settings');
    await q.query('DROP FUNCTION settings_gate_columns()');
    await q.query('ALTER TABLE organizations DROP COLUMN reason_required, DROP COLUMN ticketing_enabled');
  }
}
