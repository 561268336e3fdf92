import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 34: who controls an account. A user created by someone is controlled by them (they
 * held its first token or password); the self-elevation rules treat such an account as its
 * controller. Existing users take the creator their `User Added` audit row names.
 */
export class UserControllers1795480000000 implements MigrationInterface {
  name = 'UserControllers1795480000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN controller_id integer REFERENCES users(id) ON DELETE SET NULL`);
    await q.query(`UPDATE users u SET controller_id = x.actor_id FROM (
        SELECT DISTINCT ON (a.org_id, a.target) a.org_id, a.target, a.actor_id FROM audit a
        WHERE a.operation = 'User Added' AND a.outcome = 'Success' AND a.actor_id IS NOT NULL ORDER BY a.org_id, a.target, a.id
      ) x WHERE x.target = u.username AND x.org_id = u.org_id AND x.actor_id <> u.id`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users DROP COLUMN controller_id`);
  }
}
