import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 37: the directory decides who signs in, so where it is reached is a super
 * administrator's decision, kept with it: the Windows Domain resource's host, port, TLS mode and
 * CA as they were when the directory was configured. A sign-in or synchronisation whose
 * resource now points elsewhere (someone with full access to the resource moved it) is refused
 * until a super administrator configures the directory again. Empty: configure it again.
 */
export class DirectoryDestination1795560000000 implements MigrationInterface {
  name = 'DirectoryDestination1795560000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE directories ADD COLUMN destination text NOT NULL DEFAULT ''`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE directories DROP COLUMN destination`);
  }
}
