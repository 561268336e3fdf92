import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Keystore files imported from the unmanaged-certificate shared path (issue 8): a file is
 * "managed" once its content hash is recorded here and the certificates it held (their
 * fingerprints) are still in the inventory. Passwords are not kept here.
 */
export class UnmanagedCertImports1795242532810 implements MigrationInterface {
  name = 'UnmanagedCertImports1795242532810';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "unmanaged_cert_imports" ("id" SERIAL NOT NULL, "org_id" integer NOT NULL, "file_path" text NOT NULL, "file_sha256" text NOT NULL, "fingerprints" text array NOT NULL DEFAULT '{}', "imported_by_name" text NOT NULL DEFAULT '', "imported_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_unmanaged_cert_imports" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "unmanaged_cert_imports_org_sha_key" ON "unmanaged_cert_imports" ("org_id", "file_sha256")`);
    await q.query(
      `ALTER TABLE "unmanaged_cert_imports" ADD CONSTRAINT "fk_unmanaged_cert_imports_org_id" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "unmanaged_cert_imports" DROP CONSTRAINT "fk_unmanaged_cert_imports_org_id"`);
    await q.query(`DROP INDEX "unmanaged_cert_imports_org_sha_key"`);
    await q.query(`DROP TABLE "unmanaged_cert_imports"`);
  }
}
