import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 37, sign-in with the directory: one Active Directory per organisation, reached through
 * a Windows Domain resource (its remote-reset settings and administrator: where the bind
 * password may go was decided there), its user and group searches, the role each directory
 * group grants, and the synchronisation's schedule and last result. Users and user groups
 * that came from it carry the directory's objectGUID (which survives renames and moves).
 */
export class Directories1795540000000 implements MigrationInterface {
  name = 'Directories1795540000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE directories (
      org_id integer PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
      resource_id integer NOT NULL REFERENCES resources(id) ON DELETE RESTRICT,
      user_base text NOT NULL,
      user_filter text NOT NULL,
      group_base text NOT NULL,
      group_filter text NOT NULL,
      default_role text NOT NULL,
      -- Directory group name (lower case) to vault role.
      role_map jsonb NOT NULL DEFAULT '{}',
      sync_interval_seconds integer NOT NULL CHECK (sync_interval_seconds >= 0),
      last_sync_at timestamptz,
      last_sync_result jsonb,
      updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`ALTER TABLE users ADD COLUMN directory_guid text, ADD COLUMN directory_dn text,
      ADD COLUMN locked_by_directory boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE UNIQUE INDEX users_directory_guid ON users (org_id, directory_guid) WHERE directory_guid IS NOT NULL`);
    // The group's DN (lower case, no spaces around commas): users' memberOf names groups by DN.
    await q.query(`ALTER TABLE user_groups ADD COLUMN directory_guid text, ADD COLUMN directory_dn_key text`);
    await q.query(`CREATE UNIQUE INDEX user_groups_directory_guid ON user_groups (org_id, directory_guid) WHERE directory_guid IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX user_groups_directory_guid`);
    await q.query(`ALTER TABLE user_groups DROP COLUMN directory_guid, DROP COLUMN directory_dn_key`);
    await q.query(`DROP INDEX users_directory_guid`);
    await q.query(`ALTER TABLE users DROP COLUMN directory_guid, DROP COLUMN directory_dn, DROP COLUMN locked_by_directory`);
    await q.query(`DROP TABLE directories`);
  }
}
