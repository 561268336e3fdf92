import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 14: a password change reads the account's newest previous passwords (ORDER BY id
 * DESC LIMIT n) for the reuse check. With an index on account_id alone the planner walked
 * the primary key backwards through every account's history (3,300 rows after a few
 * thousand changes, growing with every change); (account_id, id) answers it in a few pages.
 */
export class PasswordHistoryRecent1795330000000 implements MigrationInterface {
  name = 'PasswordHistoryRecent1795330000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX "password_history_account_recent" ON "password_history" ("account_id", "id")');
    await q.query('DROP INDEX "IDX_eb54b6b1f64716b2b30bb0e50f"');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX "IDX_eb54b6b1f64716b2b30bb0e50f" ON "password_history" ("account_id")');
    await q.query('DROP INDEX "password_history_account_recent"');
  }
}
