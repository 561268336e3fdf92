import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24: an account's compliance verdict is kept on its row, computed by the server
 * when the password is set (it holds the new password then), so that account details
 * never opens a password. compliance_policy names the policy the verdict was made against
 * and compliance_problems says why the password does not meet it ('' when it does); a
 * verdict whose policy is not the account's current one is shown as unknown.
 *
 * Existing rows get none here (NULL): the data key is not in the database. The vault fills
 * them at its next start (ComplianceBackfill), opening each of those passwords as the
 * server's own audited use. A policy switch never leaves NULL behind: it leaves the old
 * verdict, shown as unknown, so that the start-up job never assesses a policy some user
 * chose (only the gate, on that user's decision, does).
 */
export class PasswordComplianceVerdict1795404000000 implements MigrationInterface {
  name = 'PasswordComplianceVerdict1795404000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE accounts ADD COLUMN compliance_policy text, ADD COLUMN compliance_problems text');
    await q.query('CREATE INDEX accounts_compliance_unassessed ON accounts (id) WHERE compliance_policy IS NULL');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX accounts_compliance_unassessed');
    await q.query('ALTER TABLE accounts DROP COLUMN compliance_problems, DROP COLUMN compliance_policy');
  }
}
