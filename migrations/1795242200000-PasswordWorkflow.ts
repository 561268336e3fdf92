import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The password access workflow (issue 4): fractional durations (tests use seconds),
 * a reason setting, the sealed pending password of a remote reset in progress, one open
 * request per requester and account, and the exclusive check-out index widened to
 * cover a check-in whose reset is still in progress.
 */
export class PasswordWorkflow1795242200000 implements MigrationInterface {
  name = 'PasswordWorkflow1795242200000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "access_controls" ALTER COLUMN "checkout_minutes" TYPE double precision`);
    await q.query(`ALTER TABLE "access_controls" ALTER COLUMN "request_ttl_minutes" TYPE double precision`);
    await q.query(`ALTER TABLE "access_controls" ADD "reason_required" boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE "password_requests" ADD "pending_password" bytea`);
    await q.query(`ALTER TABLE "password_requests" ADD "reset_started_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`DROP INDEX "password_requests_one_exclusive_checkout"`);
    await q.query(
      `CREATE UNIQUE INDEX "password_requests_one_exclusive_checkout" ON "password_requests" ("account_id") WHERE status IN ('checked_out', 'resetting') AND exclusive`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "password_requests_one_open_per_requester" ON "password_requests" ("account_id", "requester_id") WHERE status IN ('waiting', 'approved', 'checked_out', 'resetting')`,
    );
    await q.query(`CREATE INDEX "password_requests_due_expiry" ON "password_requests" ("expires_at") WHERE status IN ('waiting', 'approved')`);
    await q.query(`CREATE INDEX "password_requests_due_checkin" ON "password_requests" ("checkout_until") WHERE status = 'checked_out'`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "password_requests_due_checkin"`);
    await q.query(`DROP INDEX "password_requests_due_expiry"`);
    await q.query(`DROP INDEX "password_requests_one_open_per_requester"`);
    await q.query(`DROP INDEX "password_requests_one_exclusive_checkout"`);
    await q.query(
      `CREATE UNIQUE INDEX "password_requests_one_exclusive_checkout" ON "password_requests" ("account_id") WHERE status = 'checked_out' AND exclusive`,
    );
    await q.query(`ALTER TABLE "password_requests" DROP COLUMN "reset_started_at"`);
    await q.query(`ALTER TABLE "password_requests" DROP COLUMN "pending_password"`);
    await q.query(`ALTER TABLE "access_controls" DROP COLUMN "reason_required"`);
    await q.query(`ALTER TABLE "access_controls" ALTER COLUMN "request_ttl_minutes" TYPE integer USING ceil("request_ttl_minutes")`);
    await q.query(`ALTER TABLE "access_controls" ALTER COLUMN "checkout_minutes" TYPE integer USING ceil("checkout_minutes")`);
  }
}
