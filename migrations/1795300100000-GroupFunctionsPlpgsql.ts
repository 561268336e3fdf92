import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Resource-group membership and the help-desk restriction in PL/pgSQL, same logic as the
 * SQL versions of AuditChainAndGroups. A SQL function PostgreSQL cannot inline (these have
 * subqueries) is planned again on every execution of the statement calling it; the gate's
 * decision calls them on every password read (help-desk users, resource-group shares), so
 * each read re-planned them. PL/pgSQL keeps its plans for the session: pgbench measured
 * the membership and help-desk checks 4–5 times faster (issue 14, docs/PERFORMANCE.md).
 */
export class GroupFunctionsPlpgsql1795300100000 implements MigrationInterface {
  name = 'GroupFunctionsPlpgsql1795300100000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE OR REPLACE FUNCTION resource_criterion_matches(p_resource integer, field text, op text, val text) RETURNS boolean
        LANGUAGE plpgsql STABLE AS $$
      BEGIN
        IF upper(field) IN ('LOGINNAME', 'ACCOUNTNAME') THEN
          IF upper(op) LIKE 'NOT %' THEN
            RETURN NOT EXISTS (SELECT 1 FROM accounts a WHERE a.resource_id = p_resource AND text_criterion_matches(a.name, substr(op, 5), val));
          END IF;
          RETURN EXISTS (SELECT 1 FROM accounts a WHERE a.resource_id = p_resource AND text_criterion_matches(a.name, op, val));
        END IF;
        RETURN (SELECT text_criterion_matches(CASE upper(field)
            WHEN 'RESOURCENAME' THEN r.name
            WHEN 'RESOURCETYPE' THEN r.type
            WHEN 'DNSNAME' THEN r.dns_name
            WHEN 'DEPARTMENT' THEN r.department
            WHEN 'LOCATION' THEN r.location
            WHEN 'RESOURCEDESCRIPTION' THEN r.description
            WHEN 'RESOURCEURL' THEN r.url
            ELSE NULL END, op, val) IS TRUE
          FROM resources r WHERE r.id = p_resource);
      END $$`);
    await q.query(`CREATE OR REPLACE FUNCTION resource_in_group(p_resource integer, p_group integer) RETURNS boolean
        LANGUAGE plpgsql STABLE AS $$
      DECLARE
        g record;
      BEGIN
        SELECT rg.id, rg.kind, rg.match_mode, rg.criteria INTO g
        FROM resource_groups rg JOIN resources r ON r.id = p_resource AND r.org_id = rg.org_id WHERE rg.id = p_group;
        IF NOT FOUND THEN
          RETURN false;
        END IF;
        IF g.kind = 'static' THEN
          RETURN EXISTS (SELECT 1 FROM resource_group_members m WHERE m.group_id = g.id AND m.resource_id = p_resource);
        END IF;
        IF g.match_mode = 'or' THEN
          RETURN EXISTS (SELECT 1 FROM jsonb_to_recordset(g.criteria) c(field text, operator text, value text)
                         WHERE resource_criterion_matches(p_resource, c.field, c.operator, c.value));
        END IF;
        RETURN NOT EXISTS (SELECT 1 FROM jsonb_to_recordset(g.criteria) c(field text, operator text, value text)
                           WHERE NOT resource_criterion_matches(p_resource, c.field, c.operator, c.value));
      END $$`);
    await q.query(`CREATE OR REPLACE FUNCTION helpdesk_retrieval_blocked(p_resource integer) RETURNS boolean
        LANGUAGE plpgsql STABLE AS $$
      BEGIN
        RETURN EXISTS (SELECT 1 FROM resource_groups g JOIN resources r ON r.id = p_resource AND r.org_id = g.org_id
                       WHERE g.no_helpdesk_retrieval AND resource_in_group(p_resource, g.id));
      END $$`);
  }

  public async down(q: QueryRunner): Promise<void> {
    // Account-name criteria: positive operators ask for some matching account, negative ones for none.
    await q.query(`CREATE OR REPLACE FUNCTION resource_criterion_matches(p_resource integer, field text, op text, val text) RETURNS boolean
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
    await q.query(`CREATE OR REPLACE FUNCTION resource_in_group(p_resource integer, p_group integer) RETURNS boolean
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
    await q.query(`CREATE OR REPLACE FUNCTION helpdesk_retrieval_blocked(p_resource integer) RETURNS boolean
      LANGUAGE sql STABLE AS $$
        SELECT EXISTS (SELECT 1 FROM resource_groups g JOIN resources r ON r.id = p_resource AND r.org_id = g.org_id
                       WHERE g.no_helpdesk_retrieval AND resource_in_group(p_resource, g.id)) $$`);
  }
}
