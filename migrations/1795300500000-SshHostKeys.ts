import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SSH host keys pinned per organisation, host and port (issue 12): the fingerprint every
 * connection must present, and the last different one a host presented (refused), which
 * an administrator may then accept.
 */
export class SshHostKeys1795300500000 implements MigrationInterface {
  name = 'SshHostKeys1795300500000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "ssh_host_keys" (
        "id" SERIAL NOT NULL,
        "org_id" integer NOT NULL,
        "host" text NOT NULL,
        "port" integer NOT NULL,
        "key_type" text NOT NULL DEFAULT '',
        "fingerprint" text NOT NULL,
        "source" text NOT NULL,
        "refused_fingerprint" text,
        "refused_key_type" text,
        "refused_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_ssh_host_keys" PRIMARY KEY ("id"),
        CONSTRAINT "fk_ssh_host_keys_org_id" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE
      )`,
    );
    await q.query(`CREATE UNIQUE INDEX "ssh_host_keys_org_host_port" ON "ssh_host_keys" ("org_id", "host", "port")`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "ssh_host_keys"`);
  }
}
