import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ACME server (issue 16): External Account Binding keys (HMAC key sealed), the allowed
 * names of each CA, replay nonces shared by every instance, accounts, orders,
 * authorisations and challenges.
 */
export class AcmeServer1795300000000 implements MigrationInterface {
  name = 'AcmeServer1795300000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "acme_profiles" ("ca_id" integer NOT NULL, "allowed_domains" text array NOT NULL DEFAULT '{}', "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_acme_profiles" PRIMARY KEY ("ca_id"), CONSTRAINT "fk_acme_profiles_ca_id" FOREIGN KEY ("ca_id") REFERENCES "certificate_authorities"("id") ON DELETE CASCADE)`,
    );
    await q.query(
      `CREATE TABLE "acme_eab_keys" ("id" SERIAL NOT NULL, "key_id" text NOT NULL, "hmac_key" bytea NOT NULL, "org_id" integer NOT NULL, "ca_id" integer NOT NULL, "template" text NOT NULL DEFAULT 'WebServer', "created_by_name" text NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_acme_eab_keys" PRIMARY KEY ("id"), CONSTRAINT "acme_eab_keys_key_id_key" UNIQUE ("key_id"), CONSTRAINT "fk_acme_eab_keys_org_id" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE, CONSTRAINT "fk_acme_eab_keys_ca_id" FOREIGN KEY ("ca_id") REFERENCES "certificate_authorities"("id") ON DELETE CASCADE)`,
    );
    await q.query(`CREATE TABLE "acme_nonces" ("value" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_acme_nonces" PRIMARY KEY ("value"))`);
    await q.query(`CREATE INDEX "acme_nonces_created_at" ON "acme_nonces" ("created_at")`);
    await q.query(
      `CREATE TABLE "acme_accounts" ("id" SERIAL NOT NULL, "org_id" integer NOT NULL, "ca_id" integer NOT NULL, "eab_key_id" integer NOT NULL, "thumbprint" text NOT NULL, "jwk" jsonb NOT NULL, "status" text NOT NULL DEFAULT 'valid', "contact" text array NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_acme_accounts" PRIMARY KEY ("id"), CONSTRAINT "acme_accounts_thumbprint_key" UNIQUE ("thumbprint"), CONSTRAINT "acme_accounts_eab_key_id_key" UNIQUE ("eab_key_id"), CONSTRAINT "fk_acme_accounts_org_id" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE, CONSTRAINT "fk_acme_accounts_ca_id" FOREIGN KEY ("ca_id") REFERENCES "certificate_authorities"("id") ON DELETE CASCADE, CONSTRAINT "fk_acme_accounts_eab_key_id" FOREIGN KEY ("eab_key_id") REFERENCES "acme_eab_keys"("id") ON DELETE CASCADE)`,
    );
    await q.query(
      `CREATE TABLE "acme_orders" ("id" SERIAL NOT NULL, "account_id" integer NOT NULL, "status" text NOT NULL, "identifiers" jsonb NOT NULL, "not_before" TIMESTAMP WITH TIME ZONE, "not_after" TIMESTAMP WITH TIME ZONE, "expires" TIMESTAMP WITH TIME ZONE NOT NULL, "error" jsonb, "certificate_id" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_acme_orders" PRIMARY KEY ("id"), CONSTRAINT "fk_acme_orders_account_id" FOREIGN KEY ("account_id") REFERENCES "acme_accounts"("id") ON DELETE CASCADE, CONSTRAINT "fk_acme_orders_certificate_id" FOREIGN KEY ("certificate_id") REFERENCES "certificates"("id") ON DELETE SET NULL)`,
    );
    await q.query(`CREATE INDEX "acme_orders_account_id" ON "acme_orders" ("account_id")`);
    await q.query(`CREATE INDEX "acme_orders_certificate_id" ON "acme_orders" ("certificate_id")`);
    await q.query(
      `CREATE TABLE "acme_authorizations" ("id" SERIAL NOT NULL, "order_id" integer NOT NULL, "identifier_type" text NOT NULL, "identifier_value" text NOT NULL, "status" text NOT NULL DEFAULT 'pending', "expires" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_acme_authorizations" PRIMARY KEY ("id"), CONSTRAINT "fk_acme_authorizations_order_id" FOREIGN KEY ("order_id") REFERENCES "acme_orders"("id") ON DELETE CASCADE)`,
    );
    await q.query(`CREATE INDEX "acme_authorizations_order_id" ON "acme_authorizations" ("order_id")`);
    await q.query(
      `CREATE TABLE "acme_challenges" ("id" SERIAL NOT NULL, "authorization_id" integer NOT NULL, "type" text NOT NULL, "token" text NOT NULL, "status" text NOT NULL DEFAULT 'pending', "validated_at" TIMESTAMP WITH TIME ZONE, "error" jsonb, CONSTRAINT "PK_acme_challenges" PRIMARY KEY ("id"), CONSTRAINT "fk_acme_challenges_authorization_id" FOREIGN KEY ("authorization_id") REFERENCES "acme_authorizations"("id") ON DELETE CASCADE)`,
    );
    await q.query(`CREATE INDEX "acme_challenges_authorization_id" ON "acme_challenges" ("authorization_id")`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const t of ['acme_challenges', 'acme_authorizations', 'acme_orders', 'acme_accounts', 'acme_nonces', 'acme_eab_keys', 'acme_profiles']) {
      await q.query(`DROP TABLE "${t}"`);
    }
  }
}
