import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 16. Each CA's delegated OCSP responder (certificate, sealed key, expiry), made once
 * and shared by every instance; and the expiry notices, one row per certificate, threshold
 * and expiry date, whose unique key makes each notice happen once across instances.
 */
export class OcspAndExpiryNotices1795243100000 implements MigrationInterface {
  name = 'OcspAndExpiryNotices1795243100000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "certificate_authorities" ADD "ocsp_certificate_pem" text`);
    await q.query(`ALTER TABLE "certificate_authorities" ADD "ocsp_private_key" bytea`);
    await q.query(`ALTER TABLE "certificate_authorities" ADD "ocsp_not_after" TIMESTAMP WITH TIME ZONE`);
    await q.query(
      `CREATE TABLE "certificate_expiry_notices" (
        "id" SERIAL NOT NULL,
        "certificate_id" integer NOT NULL,
        "threshold_days" integer NOT NULL,
        "not_after" TIMESTAMP WITH TIME ZONE NOT NULL,
        "status" text NOT NULL DEFAULT 'pending',
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_error" text,
        "sent_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_certificate_expiry_notices" PRIMARY KEY ("id"),
        CONSTRAINT "certificate_expiry_notices_once" UNIQUE ("certificate_id", "threshold_days", "not_after"),
        CONSTRAINT "fk_certificate_expiry_notices_certificate" FOREIGN KEY ("certificate_id") REFERENCES "certificates"("id") ON DELETE CASCADE
      )`,
    );
    await q.query(`CREATE INDEX "certificate_expiry_notices_due" ON "certificate_expiry_notices" ("next_attempt_at") WHERE status = 'pending'`);
    await q.query(`CREATE INDEX "certificates_notify_not_after" ON "certificates" ("not_after") WHERE notification_email <> ''`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "certificates_notify_not_after"`);
    await q.query(`DROP TABLE "certificate_expiry_notices"`);
    await q.query(`ALTER TABLE "certificate_authorities" DROP COLUMN "ocsp_not_after"`);
    await q.query(`ALTER TABLE "certificate_authorities" DROP COLUMN "ocsp_private_key"`);
    await q.query(`ALTER TABLE "certificate_authorities" DROP COLUMN "ocsp_certificate_pem"`);
  }
}
