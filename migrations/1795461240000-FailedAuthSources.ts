import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24: failed authentications are audited per source (address, and the user tried, 0
 * for none): the first at once, then at most one row a minute with the count of those held
 * meanwhile (libs/auth/src/failed-auth-ledger.ts). The state lives here, not per instance,
 * so several instances on one database write one series of rows whose counts add up.
 */
export class FailedAuthSources1795461240000 implements MigrationInterface {
  name = 'FailedAuthSources1795461240000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE failed_auth_sources (
      source text NOT NULL,
      user_id integer NOT NULL,
      org_id integer,
      username text NOT NULL DEFAULT '',
      audited_at timestamptz NOT NULL,
      since timestamptz NOT NULL,
      held integer NOT NULL DEFAULT 0,
      written integer NOT NULL DEFAULT 0,
      last_description text NOT NULL DEFAULT '',
      CONSTRAINT "PK_failed_auth_sources" PRIMARY KEY (source, user_id)
    )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE failed_auth_sources`);
  }
}
