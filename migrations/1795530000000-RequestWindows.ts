import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A password request for later (PAM360's ACCESS later with STARTTIME and ENDTIME): the password
 * may be checked out only inside the window. NULL for a request for now.
 */
export class RequestWindows1795530000000 implements MigrationInterface {
  name = 'RequestWindows1795530000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE password_requests ADD COLUMN window_start timestamptz, ADD COLUMN window_end timestamptz,
      ADD CONSTRAINT password_requests_window CHECK ((window_start IS NULL) = (window_end IS NULL) AND (window_end IS NULL OR window_end > window_start))`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE password_requests DROP CONSTRAINT password_requests_window, DROP COLUMN window_start, DROP COLUMN window_end`);
  }
}
