import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 29, PAM360's POST /organizations/manage: users and user groups of the first
 * (provider) organisation granted access to another organisation, where they may then act
 * with the orgName header under their own role (actorInOrg). A provider super administrator
 * needs no grant.
 */
export class OrganizationAccess1795460290000 implements MigrationInterface {
  name = 'OrganizationAccess1795460290000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE organization_access (
      id SERIAL PRIMARY KEY,
      org_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      user_id integer REFERENCES users(id) ON DELETE CASCADE,
      user_group_id integer REFERENCES user_groups(id) ON DELETE CASCADE,
      granted_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT organization_access_one_grantee CHECK ((user_id IS NULL) <> (user_group_id IS NULL)))`);
    await q.query('CREATE UNIQUE INDEX organization_access_user ON organization_access (user_id, org_id) WHERE user_id IS NOT NULL');
    await q.query('CREATE UNIQUE INDEX organization_access_group ON organization_access (user_group_id, org_id) WHERE user_group_id IS NOT NULL');
    await q.query('CREATE INDEX organization_access_org ON organization_access (org_id)');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE organization_access');
  }
}
