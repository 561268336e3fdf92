import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 14: the audit trail loses its index on created_at alone. Every reader filters by
 * organisation and category, which (org_id, category, created_at, id) serves in order. With
 * the lone created_at index beside it, the planner took it whenever its statistics put few
 * rows in the asked range: after 15M rows written in one day (the read benchmark) and no
 * ANALYZE since, "User, TODAY" (598 rows) and pki getAuditDetails walked all of today's rows
 * through it, 2.7 s each instead of a few milliseconds. Every audit insert also maintains
 * one index fewer.
 */
export class AuditWithoutCreatedAtIndex1795350000000 implements MigrationInterface {
  name = 'AuditWithoutCreatedAtIndex1795350000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX "IDX_90a3c578059f0dd8b2b75a71cf"');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX "IDX_90a3c578059f0dd8b2b75a71cf" ON "audit" ("created_at")');
  }
}
