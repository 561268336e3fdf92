import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 14: the chain links move from the audit rows to a narrow side table (the sealer inserts
 * 48-byte rows instead of rewriting every audit row), and per-hour row counts maintained by the
 * sealer let GET_AUDIT answer an exact total without counting the range.
 */
export class AuditSealsAndCounts1795310000000 implements MigrationInterface {
  name = 'AuditSealsAndCounts1795310000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "audit_seals" ("audit_id" bigint NOT NULL, "prev_id" bigint NOT NULL, "hash" bytea NOT NULL,
      CONSTRAINT "PK_audit_seals" PRIMARY KEY ("audit_id"))`);
    await q.query(`INSERT INTO "audit_seals" ("audit_id", "prev_id", "hash")
      SELECT id, chain_prev, chain_hash FROM "audit" WHERE chain_hash IS NOT NULL AND chain_prev IS NOT NULL`);
    await q.query(`ALTER TABLE "audit" DROP COLUMN "chain_hash"`);
    await q.query(`ALTER TABLE "audit" DROP COLUMN "chain_prev"`);
    // Sealed rows per organisation, category and hour (hours since the epoch, UTC).
    await q.query(`CREATE TABLE "audit_counts" ("org_id" integer NOT NULL, "category" text NOT NULL, "hour" bigint NOT NULL,
      "rows" bigint NOT NULL, CONSTRAINT "PK_audit_counts" PRIMARY KEY ("org_id", "category", "hour"))`);
    await q.query(`INSERT INTO "audit_counts" ("org_id", "category", "hour", "rows")
      SELECT org_id, category, floor(extract(epoch FROM created_at) / 3600)::bigint, count(*) FROM "audit"
      WHERE org_id IS NOT NULL AND id <= COALESCE((SELECT last_id FROM "audit_chain" WHERE id = 1), 0)
      GROUP BY 1, 2, 3`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "audit_counts"`);
    await q.query(`ALTER TABLE "audit" ADD "chain_hash" bytea`);
    await q.query(`ALTER TABLE "audit" ADD "chain_prev" bigint`);
    await q.query(`UPDATE "audit" a SET chain_hash = s.hash, chain_prev = s.prev_id FROM "audit_seals" s WHERE s.audit_id = a.id`);
    await q.query(`DROP TABLE "audit_seals"`);
  }
}
