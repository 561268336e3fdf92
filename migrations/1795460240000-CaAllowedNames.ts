import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24: the names an organisation may have certificates for, per CA (one list for signCSR
 * and ACME), replacing the per-CA ACME allowed domains. An organisation's own CA keeps its
 * ACME list; a server-wide CA's list becomes the provider's (first organisation's), with `*`
 * first so that the provider's signCSR stays unrestricted as it was; every other organisation
 * starts with no list (nothing from the server-wide CAs) until the provider sets one.
 */
export class CaAllowedNames1795460240000 implements MigrationInterface {
  name = 'CaAllowedNames1795460240000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "ca_allowed_names" ("org_id" integer NOT NULL, "ca_id" integer NOT NULL, "names" text array NOT NULL DEFAULT '{}', "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_ca_allowed_names" PRIMARY KEY ("org_id", "ca_id"), CONSTRAINT "fk_ca_allowed_names_org_id" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE, CONSTRAINT "fk_ca_allowed_names_ca_id" FOREIGN KEY ("ca_id") REFERENCES "certificate_authorities"("id") ON DELETE CASCADE)`,
    );
    await q.query(
      `INSERT INTO "ca_allowed_names" ("org_id", "ca_id", "names", "updated_at")
       SELECT c.org_id, p.ca_id, p.allowed_domains, p.updated_at FROM "acme_profiles" p JOIN "certificate_authorities" c ON c.id = p.ca_id WHERE c.org_id IS NOT NULL`,
    );
    await q.query(
      `INSERT INTO "ca_allowed_names" ("org_id", "ca_id", "names", "updated_at")
       SELECT (SELECT min(id) FROM "organizations"), p.ca_id, array_prepend('*', array_remove(p.allowed_domains, '*')), p.updated_at
         FROM "acme_profiles" p JOIN "certificate_authorities" c ON c.id = p.ca_id
        WHERE c.org_id IS NULL AND EXISTS (SELECT 1 FROM "organizations")`,
    );
    await q.query(`DROP TABLE "acme_profiles"`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "acme_profiles" ("ca_id" integer NOT NULL, "allowed_domains" text array NOT NULL DEFAULT '{}', "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_acme_profiles" PRIMARY KEY ("ca_id"), CONSTRAINT "fk_acme_profiles_ca_id" FOREIGN KEY ("ca_id") REFERENCES "certificate_authorities"("id") ON DELETE CASCADE)`,
    );
    await q.query(
      `INSERT INTO "acme_profiles" ("ca_id", "allowed_domains", "updated_at")
       SELECT n.ca_id, array_remove(n.names, '*'), n.updated_at FROM "ca_allowed_names" n JOIN "certificate_authorities" c ON c.id = n.ca_id
        WHERE n.org_id = COALESCE(c.org_id, (SELECT min(id) FROM "organizations"))`,
    );
    await q.query(`DROP TABLE "ca_allowed_names"`);
  }
}
