import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Certificate authorities belong to an organisation (issue 11): a CA name is unique within
 * its organisation (the server-wide CAs, org_id NULL, form one more scope), not across the
 * server. `internal` marks the CA that issues the services' own TLS certificate: no API
 * caller lists it or signs with it.
 */
export class AuthoritiesPerOrganisation1795243600000 implements MigrationInterface {
  name = 'AuthoritiesPerOrganisation1795243600000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "certificate_authorities" DROP CONSTRAINT "UQ_5b160d6951ebfb141fbfd83a0fc"`);
    await q.query(
      `CREATE UNIQUE INDEX "certificate_authorities_org_name_key" ON "certificate_authorities" (COALESCE("org_id", 0), lower("name"))`,
    );
    await q.query(`ALTER TABLE "certificate_authorities" ADD "internal" boolean NOT NULL DEFAULT false`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "certificate_authorities" DROP COLUMN "internal"`);
    await q.query(`DROP INDEX "certificate_authorities_org_name_key"`);
    await q.query(`ALTER TABLE "certificate_authorities" ADD CONSTRAINT "UQ_5b160d6951ebfb141fbfd83a0fc" UNIQUE ("name")`);
  }
}
