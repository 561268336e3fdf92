import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 34: who last changed an access control's approvers, and when. An approval does not
 * count from a named approver when the requester changed the approvers after the request began.
 */
export class ApproverChanges1795490000000 implements MigrationInterface {
  name = 'ApproverChanges1795490000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE access_controls ADD COLUMN approvers_changed_by integer REFERENCES users(id) ON DELETE SET NULL,
      ADD COLUMN approvers_changed_at timestamptz`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE access_controls DROP COLUMN approvers_changed_by, DROP COLUMN approvers_changed_at`);
  }
}
