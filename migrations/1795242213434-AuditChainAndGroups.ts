import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 5: the audit hash chain (state row, link column, xid-before-id default),
 * a paging index for GET /audit, and live resource-group membership as SQL functions
 * used by the visibility predicate.
 */
export class AuditChainAndGroups1795242213434 implements MigrationInterface {
  name = 'AuditChainAndGroups1795242213434';

  public async up(q: QueryRunner): Promise<void> {
    // Each sealed row names the row sealed before it, so a removed row is told apart from an altered one.
    await q.query(`ALTER TABLE "audit" ADD "chain_prev" bigint`);
    // One row: the sealed HMAC key and the head of the chain. Locked FOR UPDATE SKIP LOCKED by the sealer.
    await q.query(`CREATE TABLE "audit_chain" ("id" integer NOT NULL DEFAULT 1, "sealed_key" bytea NOT NULL,
      "last_id" bigint NOT NULL DEFAULT 0, "last_hash" bytea NOT NULL, "sealed_rows" bigint NOT NULL DEFAULT 0,
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "audit_chain_one_row" CHECK (id = 1), CONSTRAINT "PK_audit_chain" PRIMARY KEY ("id"))`);
    // The writer's transaction gets its xid before it draws an id: the sealer can then prove that
    // every id up to a bound is either committed or never will be (see libs/audit/src/audit-sealer.ts).
    await q.query(`CREATE FUNCTION audit_next_id() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        PERFORM pg_current_xact_id();
        RETURN nextval('audit_id_seq');
      END $$`);
    await q.query(`ALTER TABLE "audit" ALTER COLUMN "id" SET DEFAULT audit_next_id()`);
    // Newest-first pages of one organisation and type; id makes the order total and lets a page
    // be found from the index alone before the rows are fetched.
    await q.query(`CREATE INDEX "audit_org_category_created_id" ON "audit" ("org_id", "category", "created_at", "id")`);
    await q.query(`DROP INDEX "public"."IDX_c86ddfd1879b48c241d2b7500d"`);
    await q.query(`CREATE INDEX "shares_resource_group_id" ON "shares" ("resource_group_id") WHERE resource_group_id IS NOT NULL`);

    // One criterion against one text; negative operators are the negation of the positive ones.
    await q.query(`CREATE FUNCTION text_criterion_matches(subject text, op text, val text) RETURNS boolean
      LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE upper(op)
          WHEN 'CONTAINS' THEN strpos(lower(subject), lower(val)) > 0
          WHEN 'NOT CONTAINS' THEN strpos(lower(subject), lower(val)) = 0
          WHEN 'EQUALS' THEN lower(subject) = lower(val)
          WHEN 'NOT EQUALS' THEN lower(subject) <> lower(val)
          WHEN 'STARTS WITH' THEN left(lower(subject), length(val)) = lower(val)
          WHEN 'ENDS WITH' THEN right(lower(subject), length(val)) = lower(val)
          ELSE false END $$`);
    // Account-name criteria: positive operators ask for some matching account, negative ones for none.
    await q.query(`CREATE FUNCTION resource_criterion_matches(p_resource integer, field text, op text, val text) RETURNS boolean
      LANGUAGE sql STABLE AS $$
        SELECT CASE
          WHEN upper(field) IN ('LOGINNAME', 'ACCOUNTNAME') THEN
            CASE WHEN upper(op) LIKE 'NOT %'
              THEN NOT EXISTS (SELECT 1 FROM accounts a WHERE a.resource_id = p_resource
                               AND text_criterion_matches(a.name, substr(op, 5), val))
              ELSE EXISTS (SELECT 1 FROM accounts a WHERE a.resource_id = p_resource
                           AND text_criterion_matches(a.name, op, val)) END
          ELSE (SELECT text_criterion_matches(CASE upper(field)
              WHEN 'RESOURCENAME' THEN r.name
              WHEN 'RESOURCETYPE' THEN r.type
              WHEN 'DNSNAME' THEN r.dns_name
              WHEN 'DEPARTMENT' THEN r.department
              WHEN 'LOCATION' THEN r.location
              WHEN 'RESOURCEDESCRIPTION' THEN r.description
              WHEN 'RESOURCEURL' THEN r.url
              ELSE NULL END, op, val) IS TRUE
            FROM resources r WHERE r.id = p_resource)
        END $$`);
    // Live membership: static groups list members; dynamic groups match their criteria now.
    await q.query(`CREATE FUNCTION resource_in_group(p_resource integer, p_group integer) RETURNS boolean
      LANGUAGE sql STABLE AS $$
        SELECT COALESCE((
          SELECT CASE WHEN g.kind = 'static' THEN EXISTS (
                   SELECT 1 FROM resource_group_members m WHERE m.group_id = g.id AND m.resource_id = p_resource)
                 WHEN g.match_mode = 'or' THEN EXISTS (
                   SELECT 1 FROM jsonb_to_recordset(g.criteria) c(field text, operator text, value text)
                   WHERE resource_criterion_matches(p_resource, c.field, c.operator, c.value))
                 ELSE NOT EXISTS (
                   SELECT 1 FROM jsonb_to_recordset(g.criteria) c(field text, operator text, value text)
                   WHERE NOT resource_criterion_matches(p_resource, c.field, c.operator, c.value)) END
          FROM resource_groups g JOIN resources r ON r.id = p_resource AND r.org_id = g.org_id
          WHERE g.id = p_group), false) $$`);
    // NoHelpDeskRetrieval (op 50): the resource belongs to a group whose passwords help-desk users may not retrieve.
    await q.query(`CREATE FUNCTION helpdesk_retrieval_blocked(p_resource integer) RETURNS boolean
      LANGUAGE sql STABLE AS $$
        SELECT EXISTS (SELECT 1 FROM resource_groups g JOIN resources r ON r.id = p_resource AND r.org_id = g.org_id
                       WHERE g.no_helpdesk_retrieval AND resource_in_group(p_resource, g.id)) $$`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION helpdesk_retrieval_blocked(integer)`);
    await q.query(`DROP FUNCTION resource_in_group(integer, integer)`);
    await q.query(`DROP FUNCTION resource_criterion_matches(integer, text, text, text)`);
    await q.query(`DROP FUNCTION text_criterion_matches(text, text, text)`);
    await q.query(`DROP INDEX "public"."shares_resource_group_id"`);
    await q.query(`CREATE INDEX "IDX_c86ddfd1879b48c241d2b7500d" ON "audit" ("org_id", "category", "created_at")`);
    await q.query(`DROP INDEX "public"."audit_org_category_created_id"`);
    await q.query(`ALTER TABLE "audit" ALTER COLUMN "id" SET DEFAULT nextval('audit_id_seq')`);
    await q.query(`DROP FUNCTION audit_next_id()`);
    await q.query(`DROP TABLE "audit_chain"`);
    await q.query(`ALTER TABLE "audit" DROP COLUMN "chain_prev"`);
  }
}
