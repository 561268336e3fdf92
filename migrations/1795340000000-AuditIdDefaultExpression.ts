import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 14: the audit id default as a plain expression instead of a PL/pgSQL function. Every
 * audit insert called audit_next_id(), and the call cost the password read about 5% of its
 * PostgreSQL time. The order is kept: a CASE evaluates its condition before its result, so
 * the writer's transaction still takes its xid before it draws the id (what the sealer relies
 * on, see libs/audit/src/audit-sealer.ts); neither call is constant, so neither is folded.
 */
export class AuditIdDefaultExpression1795340000000 implements MigrationInterface {
  name = 'AuditIdDefaultExpression1795340000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "audit" ALTER COLUMN "id" SET DEFAULT (CASE WHEN pg_current_xact_id() IS NOT NULL THEN nextval('audit_id_seq') END)`);
    await q.query('DROP FUNCTION audit_next_id()');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION audit_next_id() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        PERFORM pg_current_xact_id();
        RETURN nextval('audit_id_seq');
      END $$`);
    await q.query(`ALTER TABLE "audit" ALTER COLUMN "id" SET DEFAULT audit_next_id()`);
  }
}
