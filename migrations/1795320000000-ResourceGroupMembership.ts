import { MigrationInterface, QueryRunner } from 'typeorm';
import { GroupFunctionsPlpgsql1795300100000 } from './1795300100000-GroupFunctionsPlpgsql';

/**
 * Criterion `c` (field, operator, value) holds for resource `r`, as an expression
 * (text_criterion_matches is inlined), never NULL: the one definition, used set-wise by the
 * refresh and per pair by resource_criterion_matches. Account-name criteria ask for some
 * matching account, negative operators for none.
 */
const MATCHES = `(CASE WHEN upper(c.field) IN ('LOGINNAME', 'ACCOUNTNAME') THEN
    CASE WHEN upper(c.operator) LIKE 'NOT %'
      THEN NOT EXISTS (SELECT 1 FROM accounts a WHERE a.resource_id = r.id AND text_criterion_matches(a.name, substr(c.operator, 5), c.value))
      ELSE EXISTS (SELECT 1 FROM accounts a WHERE a.resource_id = r.id AND text_criterion_matches(a.name, c.operator, c.value)) END
  ELSE coalesce(text_criterion_matches(CASE upper(c.field)
      WHEN 'RESOURCENAME' THEN r.name WHEN 'RESOURCETYPE' THEN r.type WHEN 'DNSNAME' THEN r.dns_name
      WHEN 'DEPARTMENT' THEN r.department WHEN 'LOCATION' THEN r.location
      WHEN 'RESOURCEDESCRIPTION' THEN r.description WHEN 'RESOURCEURL' THEN r.url END, c.operator, c.value), false) END)`;

/** Membership of the (resource r, group g) pairs `where` picks, deleted and computed again. */
function refreshSql(where: string): string {
  return `IF NOT p_fresh THEN
    DELETE FROM resource_group_membership m USING resource_groups g, resources r
    WHERE g.id = m.group_id AND r.id = m.resource_id AND ${where};
  END IF;
  INSERT INTO resource_group_membership (resource_id, group_id)
  SELECT r.id, g.id FROM resource_groups g JOIN resource_group_members m ON m.group_id = g.id
  JOIN resources r ON r.id = m.resource_id AND r.org_id = g.org_id
  WHERE g.kind = 'static' AND ${where}
  UNION ALL
  SELECT r.id, g.id FROM resource_groups g JOIN resources r ON r.org_id = g.org_id
  WHERE g.kind <> 'static' AND ${where}
    AND CASE WHEN g.match_mode = 'or'
      THEN EXISTS (SELECT 1 FROM jsonb_to_recordset(g.criteria) c(field text, operator text, value text) WHERE ${MATCHES})
      ELSE NOT EXISTS (SELECT 1 FROM jsonb_to_recordset(g.criteria) c(field text, operator text, value text) WHERE NOT ${MATCHES}) END
  ON CONFLICT DO NOTHING;`;
}

/**
 * Resource-group membership kept in a table instead of evaluated live (issue 14).
 *
 * Every share of a resource group, and the help-desk restriction, asked `resource_in_group`
 * for each resource it touched: criteria parsed from JSON and matched per resource, on every
 * password read and tens of thousands of times per GET /resources. Membership depends only
 * on resources (the fields a criterion can name), their accounts (account-name criteria), the
 * groups' definitions and the static member lists, so it is kept exact by triggers on those
 * four tables, in the writer's transaction, whatever the write path (HTTP, admin command,
 * import, migration). The live, per-pair definition stays as `resource_in_group_live`: the
 * equivalence test holds the table to it after every kind of write (the criterion itself is
 * one expression, MATCHES, shared by both).
 *
 * Concurrency (READ COMMITTED): two writers touching one resource serialise on the resource
 * row (the triggers lock it); a change of a group's definition takes an exclusive
 * per-organisation advisory lock that every resource-side refresh takes shared, and each
 * refresh reads with a fresh snapshot after its locks, so neither side computes from the
 * other's stale state. REPEATABLE READ would read stale state after the wait: refused.
 */
export class ResourceGroupMembership1795320000000 implements MigrationInterface {
  name = 'ResourceGroupMembership1795320000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE resource_group_membership (
      resource_id integer NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
      group_id integer NOT NULL,
      PRIMARY KEY (resource_id, group_id))`);
    // No foreign key to resource_groups: its check would share-lock the group's row from every
    // resource insert (multixacts under concurrent creation); a delete trigger cleans up instead.
    await q.query('CREATE INDEX resource_group_membership_group ON resource_group_membership (group_id, resource_id)');
    // The help-desk rule asks, on every read by a Password User, for the few groups closed to them.
    await q.query('CREATE INDEX resource_groups_no_helpdesk ON resource_groups (id) WHERE no_helpdesk_retrieval');
    await q.query('ALTER FUNCTION resource_in_group(integer, integer) RENAME TO resource_in_group_live');
    // The per-pair criterion the live definition asks, from the same expression as the refresh.
    await q.query(`CREATE OR REPLACE FUNCTION resource_criterion_matches(p_resource integer, field text, op text, val text) RETURNS boolean
        LANGUAGE sql STABLE AS $$
      SELECT coalesce((SELECT ${MATCHES} FROM resources r, (SELECT field, op, val) c(field, operator, value) WHERE r.id = p_resource), false) $$`);
    // The gate asks the table itself (helpdeskBlockedSql, resourceVisibleSql): no caller is left.
    await q.query('DROP FUNCTION helpdesk_retrieval_blocked(integer)');

    // Locks in a fixed order (organisation ids ascending) so that two writers cannot deadlock on them.
    await q.query(`CREATE FUNCTION lock_group_membership(p_orgs integer[], p_exclusive boolean) RETURNS void
        LANGUAGE plpgsql AS $$
      DECLARE
        o integer;
      BEGIN
        IF current_setting('transaction_isolation') = 'repeatable read' THEN
          RAISE EXCEPTION 'resources and resource groups are written in READ COMMITTED or SERIALIZABLE transactions only';
        END IF;
        FOR o IN SELECT DISTINCT x FROM unnest(p_orgs) x WHERE x IS NOT NULL ORDER BY x LOOP
          IF p_exclusive THEN
            PERFORM pg_advisory_xact_lock(1380403533, o);
          ELSE
            PERFORM pg_advisory_xact_lock_shared(1380403533, o);
          END IF;
        END LOOP;
      END $$`);
    // Recomputes membership for the given groups (NULL: all) and resources (NULL: all);
    // p_fresh: the resources are new, nothing to delete. Criteria are matched set-wise, one
    // statement per case, each with plain predicates so that its cached plan uses the indexes
    // (a generic plan of "p IS NULL OR id = ANY (p)" scanned every resource). A resource insert
    // against 50 rule-based groups: 4.6 ms through resource_in_group_live per pair, 0.3 ms
    // here (the whole insert 0.5 ms, against 0.24 without the trigger). The equivalence test
    // holds this to resource_in_group_live, the reference. Generic plans: PL/pgSQL kept
    // choosing custom ones, planning ~1 ms on every call. No JIT: compiling took a second.
    const cases = [
      ['p_groups IS NOT NULL AND p_resources IS NOT NULL', 'g.id = ANY (p_groups) AND r.id = ANY (p_resources)'],
      ['p_resources IS NOT NULL', 'r.id = ANY (p_resources)'],
      ['p_groups IS NOT NULL', 'g.id = ANY (p_groups)'],
    ];
    const branches = cases.map(([when, where], i) => `${i === 0 ? 'IF' : 'ELSIF'} ${when} THEN\n${refreshSql(where)}`).join('\n');
    await q.query(`CREATE FUNCTION refresh_group_membership(p_groups integer[], p_resources integer[], p_fresh boolean DEFAULT false) RETURNS void
        LANGUAGE plpgsql SET jit = off SET plan_cache_mode = force_generic_plan AS $$
      BEGIN
        ${branches}
        ELSE
        ${refreshSql('true')}
        END IF;
      END $$`);
    // Resource-side refresh: lock the resources' rows and their organisations (shared), then recompute.
    await q.query(`CREATE FUNCTION refresh_resources_membership(p_resources integer[], p_groups integer[], p_fresh boolean DEFAULT false) RETURNS void
        LANGUAGE plpgsql AS $$
      BEGIN
        IF p_resources IS NULL OR cardinality(p_resources) = 0 OR cardinality(p_groups) = 0 THEN
          RETURN;
        END IF;
        IF NOT p_fresh THEN
          PERFORM 1 FROM resources r WHERE r.id = ANY (p_resources) ORDER BY r.id FOR NO KEY UPDATE;
        END IF;
        PERFORM lock_group_membership(ARRAY(SELECT r.org_id FROM resources r WHERE r.id = ANY (p_resources)), false);
        PERFORM refresh_group_membership(p_groups, p_resources, p_fresh);
      END $$`);

    await q.query(`CREATE FUNCTION resources_membership_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM refresh_resources_membership(ARRAY(SELECT id FROM added), NULL, true);
        RETURN NULL;
      END $$`);
    // Only changes of the fields a criterion can name (or of the organisation) move a resource:
    // a row trigger with WHEN, so that other updates (owner, notes) call nothing.
    await q.query(`CREATE FUNCTION resources_membership_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM refresh_resources_membership(ARRAY[NEW.id], NULL);
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER resources_membership_insert AFTER INSERT ON resources
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION resources_membership_inserted()`);
    await q.query(`CREATE TRIGGER resources_membership_update AFTER UPDATE ON resources FOR EACH ROW
      WHEN ((NEW.org_id, NEW.name, NEW.type, NEW.dns_name, NEW.department, NEW.location, NEW.description, NEW.url)
            IS DISTINCT FROM (OLD.org_id, OLD.name, OLD.type, OLD.dns_name, OLD.department, OLD.location, OLD.description, OLD.url))
      EXECUTE FUNCTION resources_membership_updated()`);

    // Accounts matter to groups with account-name criteria only; the shared lock comes first,
    // so that a group gaining such a criterion concurrently is seen.
    await q.query(`CREATE FUNCTION refresh_accounts_membership(p_resources integer[]) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        groups integer[];
      BEGIN
        IF cardinality(p_resources) = 0 THEN
          RETURN;
        END IF;
        PERFORM lock_group_membership(ARRAY(SELECT r.org_id FROM resources r WHERE r.id = ANY (p_resources)), false);
        groups := ARRAY(SELECT g.id FROM resource_groups g WHERE g.kind <> 'static'
                          AND g.org_id IN (SELECT r.org_id FROM resources r WHERE r.id = ANY (p_resources))
                          AND EXISTS (SELECT 1 FROM jsonb_array_elements(g.criteria) c WHERE upper(c->>'field') IN ('LOGINNAME', 'ACCOUNTNAME')));
        IF cardinality(groups) > 0 THEN
          PERFORM refresh_resources_membership(p_resources, groups);
        END IF;
      END $$`);
    await q.query(`CREATE FUNCTION accounts_membership_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM refresh_accounts_membership(ARRAY(SELECT DISTINCT resource_id FROM added));
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM refresh_accounts_membership(ARRAY(SELECT DISTINCT resource_id FROM removed));
        ELSE
          PERFORM refresh_accounts_membership(ARRAY(SELECT DISTINCT x FROM unnest(ARRAY[OLD.resource_id, NEW.resource_id]) x));
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER accounts_membership_insert AFTER INSERT ON accounts
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION accounts_membership_changed()`);
    await q.query(`CREATE TRIGGER accounts_membership_delete AFTER DELETE ON accounts
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION accounts_membership_changed()`);
    // A row trigger with WHEN: a password change (the frequent update) calls nothing.
    await q.query(`CREATE TRIGGER accounts_membership_update AFTER UPDATE ON accounts FOR EACH ROW
      WHEN ((NEW.name, NEW.resource_id) IS DISTINCT FROM (OLD.name, OLD.resource_id))
      EXECUTE FUNCTION accounts_membership_changed()`);

    // A group's definition: exclusive lock on its organisation, then the whole group again.
    await q.query(`CREATE FUNCTION groups_membership_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        touched integer[];
      BEGIN
        IF TG_OP = 'INSERT' THEN
          -- A new static group has no members yet (they come through resource_group_members,
          -- which cannot name it before it commits): no lock, so a resource insert joining a
          -- new static group (op 6's RESOURCEGROUPNAME) never upgrades its shared lock.
          touched := ARRAY(SELECT id FROM added WHERE kind <> 'static');
          PERFORM lock_group_membership(ARRAY(SELECT org_id FROM added WHERE kind <> 'static'), true);
        ELSE
          touched := ARRAY(SELECT n.id FROM changed n JOIN previous o ON o.id = n.id
                           WHERE (n.org_id, n.kind, n.match_mode, n.criteria) IS DISTINCT FROM (o.org_id, o.kind, o.match_mode, o.criteria));
          PERFORM lock_group_membership(ARRAY(SELECT org_id FROM changed WHERE id = ANY (touched)
                                              UNION SELECT org_id FROM previous WHERE id = ANY (touched)), true);
        END IF;
        IF cardinality(touched) > 0 THEN
          PERFORM refresh_group_membership(touched, NULL);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE FUNCTION groups_membership_removed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM lock_group_membership(ARRAY(SELECT org_id FROM removed), true);
        DELETE FROM resource_group_membership m USING removed WHERE m.group_id = removed.id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER resource_groups_membership_delete AFTER DELETE ON resource_groups
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION groups_membership_removed()`);
    await q.query(`CREATE TRIGGER resource_groups_membership_insert AFTER INSERT ON resource_groups
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION groups_membership_changed()`);
    await q.query(`CREATE TRIGGER resource_groups_membership_update AFTER UPDATE ON resource_groups
      REFERENCING NEW TABLE AS changed OLD TABLE AS previous FOR EACH STATEMENT EXECUTE FUNCTION groups_membership_changed()`);

    // Static member lists: the pairs listed (or unlisted) are recomputed on the resource side.
    await q.query(`CREATE FUNCTION static_members_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM refresh_resources_membership(ARRAY(SELECT DISTINCT resource_id FROM added), ARRAY(SELECT DISTINCT group_id FROM added));
        ELSE
          -- Members removed because their group is being deleted: the group's own delete
          -- trigger clears them under its exclusive lock; taking the shared lock here first
          -- would make two concurrent group deletions deadlock on the upgrade.
          PERFORM refresh_resources_membership(ARRAY(SELECT DISTINCT resource_id FROM removed),
            ARRAY(SELECT DISTINCT x.group_id FROM removed x JOIN resource_groups g ON g.id = x.group_id));
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER resource_group_members_insert AFTER INSERT ON resource_group_members
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION static_members_changed()`);
    await q.query(`CREATE TRIGGER resource_group_members_delete AFTER DELETE ON resource_group_members
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION static_members_changed()`);

    await q.query('SELECT refresh_group_membership(NULL, NULL)');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER resource_group_members_delete ON resource_group_members');
    await q.query('DROP TRIGGER resource_group_members_insert ON resource_group_members');
    await q.query('DROP TRIGGER resource_groups_membership_delete ON resource_groups');
    await q.query('DROP TRIGGER resource_groups_membership_update ON resource_groups');
    await q.query('DROP TRIGGER resource_groups_membership_insert ON resource_groups');
    await q.query('DROP TRIGGER accounts_membership_update ON accounts');
    await q.query('DROP TRIGGER accounts_membership_delete ON accounts');
    await q.query('DROP TRIGGER accounts_membership_insert ON accounts');
    await q.query('DROP TRIGGER resources_membership_update ON resources');
    await q.query('DROP TRIGGER resources_membership_insert ON resources');
    await q.query('DROP FUNCTION static_members_changed()');
    await q.query('DROP FUNCTION groups_membership_removed()');
    await q.query('DROP FUNCTION groups_membership_changed()');
    await q.query('DROP FUNCTION accounts_membership_changed()');
    await q.query('DROP FUNCTION resources_membership_updated()');
    await q.query('DROP FUNCTION resources_membership_inserted()');
    await q.query('DROP FUNCTION refresh_accounts_membership(integer[])');
    await q.query('DROP FUNCTION refresh_resources_membership(integer[], integer[], boolean)');
    await q.query('DROP FUNCTION refresh_group_membership(integer[], integer[], boolean)');
    await q.query('DROP FUNCTION lock_group_membership(integer[], boolean)');
    await q.query('ALTER FUNCTION resource_in_group_live(integer, integer) RENAME TO resource_in_group');
    // The live functions as they were (criterion match, membership, help-desk rule).
    await new GroupFunctionsPlpgsql1795300100000().up(q);
    await q.query('DROP INDEX resource_groups_no_helpdesk');
    await q.query('DROP TABLE resource_group_membership');
  }
}
