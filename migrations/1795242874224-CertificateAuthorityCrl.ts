import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Certificate authorities (issue 7): an owning organisation (NULL = the server-wide CAs
 * made at first start), the issuer chain above the CA, and the last published CRL, kept
 * so that every instance serves the same CRL for a given CRL number.
 */
export class CertificateAuthorityCrl1795242874224 implements MigrationInterface {
  name = 'CertificateAuthorityCrl1795242874224';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "certificate_authorities" ADD "org_id" integer`);
    await q.query(`ALTER TABLE "certificate_authorities" ADD "chain_pem" text NOT NULL DEFAULT ''`);
    await q.query(`ALTER TABLE "certificate_authorities" ADD "crl_der" bytea`);
    await q.query(`ALTER TABLE "certificate_authorities" ADD "crl_next_update" TIMESTAMP WITH TIME ZONE`);
    await q.query(
      `ALTER TABLE "certificate_authorities" ADD CONSTRAINT "fk_certificate_authorities_org_id" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE`,
    );
    await q.query(`CREATE INDEX "certificate_authorities_common_name" ON "certificate_authorities" (lower("common_name"))`);
    await q.query(`CREATE INDEX "certificates_ca_revoked" ON "certificates" ("ca_id") WHERE revoked_at IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "certificates_ca_revoked"`);
    await q.query(`DROP INDEX "certificate_authorities_common_name"`);
    await q.query(`ALTER TABLE "certificate_authorities" DROP CONSTRAINT "fk_certificate_authorities_org_id"`);
    await q.query(`ALTER TABLE "certificate_authorities" DROP COLUMN "crl_next_update"`);
    await q.query(`ALTER TABLE "certificate_authorities" DROP COLUMN "crl_der"`);
    await q.query(`ALTER TABLE "certificate_authorities" DROP COLUMN "chain_pem"`);
    await q.query(`ALTER TABLE "certificate_authorities" DROP COLUMN "org_id"`);
  }
}
