import { Client } from 'pg';
import request from 'supertest';
import { AuditWriter } from '@app/audit';
import { findSetting, writeSetting } from '../../apps/vault/src/settings/settings';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { commitWhenDone, seededRandom, untilBlockedOrDone } from '../support/races';

// The gate reads the caller's user groups from users.user_group_ids, and the two gate
// settings and the groups under the help-desk rule from the organisation's row (migrations
// CallerGateColumns, NoHelpdeskGroupIds). Triggers keep those
// copies; a stale copy would let the password read grant what the policy refuses. These
// tests hold the copies against their sources after every kind of change, concurrent ones
// included, and show the read following a change at once.
describe('caller gate columns: users.user_group_ids and the organisation\'s settings and help-desk groups follow their sources', () => {
  let s: TestServices;
  let orgId: number;
  const q = (sql: string, params: unknown[] = []) => s.dataSource.query(sql, params);

  beforeAll(async () => {
    s = await startTestServices();
    [{ id: orgId }] = await q(`SELECT id FROM organizations WHERE name = 'Default'`);
  });
  afterAll(() => s.close());

  /** Users and organisations whose copy differs from its source (empty when all agree). */
  async function stale(): Promise<unknown[]> {
    const users = await q(`SELECT u.id, u.user_group_ids FROM users u
      WHERE ARRAY(SELECT x FROM unnest(u.user_group_ids) x ORDER BY x)
            IS DISTINCT FROM ARRAY(SELECT m.group_id FROM user_group_members m WHERE m.user_id = u.id ORDER BY m.group_id)`);
    const orgs = await q(`SELECT o.id, o.reason_required, o.ticketing_enabled FROM organizations o
      WHERE o.reason_required IS DISTINCT FROM coalesce((SELECT v.value = 'true'::jsonb FROM settings v WHERE v.org_id = o.id AND v.key = 'reason_required'), false)
         OR o.ticketing_enabled IS DISTINCT FROM coalesce((SELECT v.value = 'true'::jsonb FROM settings v WHERE v.org_id = o.id AND v.key = 'ticketing_enabled'), false)
         OR ARRAY(SELECT x FROM unnest(o.no_helpdesk_group_ids) x ORDER BY x)
            IS DISTINCT FROM ARRAY(SELECT g.id FROM resource_groups g WHERE g.org_id = o.id AND g.no_helpdesk_retrieval ORDER BY g.id)`);
    return [...users, ...orgs];
  }

  it('after 150 seeded-random changes through SQL, the user API and the settings writer', async () => {
    const random = seededRandom(14).below;
    const users: { id: number; name: string }[] = [];
    for (let i = 0; i < 5; i++) users.push({ ...(await createUserWithToken(s, `cols-user-${i}`)), name: `cols-user-${i}` });
    const groupIds = async (): Promise<number[]> => (await q('SELECT id FROM user_groups WHERE org_id = $1', [orgId])).map((g: { id: number }) => g.id);
    const audit = s.vault.get(AuditWriter);
    let groupNo = 0;
    const newGroup = async () => (await q('INSERT INTO user_groups (org_id, name, name_key) VALUES ($1, $2, $2) RETURNING id', [orgId, `cols-g${groupNo++}`]))[0].id;
    for (let i = 0; i < 3; i++) await newGroup();
    const done: string[] = [];
    const seen = { grouped: 0, marked: 0 };
    for (let step = 0; step < 150; step++) {
      const user = users[random(users.length)];
      const groups = await groupIds();
      const group = groups[random(groups.length)];
      const kind = random(12);
      if (kind === 0) await q('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [group, user.id]);
      if (kind === 1) {
        const res = await request(s.vaultUrl).post('/restapi/json/v1/user/addUserToUserGroup').set('AUTHTOKEN', s.adminToken).query({ USERNAME: user.name, USERGROUPNAME: `cols-g${random(groupNo)}` });
        expect(res.body.operation.result.status).toBe('Success');
      }
      if (kind === 2) await q('DELETE FROM user_group_members WHERE user_id = $1 AND group_id = $2', [user.id, group]);
      if (kind === 3) {
        // Moves a membership to a group the user is not in (an UPDATE of both key columns).
        await q(`UPDATE user_group_members SET group_id = $2, user_id = $3 WHERE (group_id, user_id) = (
                   SELECT group_id, user_id FROM user_group_members WHERE user_id = $1 LIMIT 1)
                 AND NOT EXISTS (SELECT 1 FROM user_group_members WHERE group_id = $2 AND user_id = $3)`, [user.id, group, users[random(users.length)].id]);
      }
      if (kind === 4 && groups.length > 2) await q('DELETE FROM user_groups WHERE id = $1', [group]);
      if (kind === 5) await newGroup();
      if (kind === 6) {
        const key = ['reason_required', 'ticketing_enabled', 'unrelated_key'][random(3)];
        await q(`INSERT INTO settings (org_id, key, value) VALUES ($1, $2, $3::jsonb) ON CONFLICT (org_id, key) DO UPDATE SET value = EXCLUDED.value`, [
          orgId,
          key,
          JSON.stringify(random(2) === 0),
        ]);
      }
      if (kind === 7) {
        const definition = findSetting(['reason-required', 'ticketing'][random(2)])!;
        await s.dataSource.transaction((m) => writeSetting(m, audit, orgId, definition, random(2) === 0, null, 'test'));
      }
      if (kind === 8) await q('DELETE FROM settings WHERE org_id = $1 AND key = $2', [orgId, ['reason_required', 'ticketing_enabled'][random(2)]]);
      if (kind === 9) {
        await q(`INSERT INTO resource_groups (org_id, name, name_key, kind, no_helpdesk_retrieval) VALUES ($1, $2, $2, 'static', $3)`, [orgId, `cols-rg${step}`, random(2) === 0]);
      }
      const [resourceGroup] = await q(`SELECT id FROM resource_groups WHERE org_id = $1 ORDER BY md5(id::text || $2) LIMIT 1`, [orgId, String(step)]);
      if (kind === 10 && resourceGroup) await q('UPDATE resource_groups SET no_helpdesk_retrieval = NOT no_helpdesk_retrieval WHERE id = $1', [resourceGroup.id]);
      if (kind === 11 && resourceGroup) await q('DELETE FROM resource_groups WHERE id = $1', [resourceGroup.id]);
      done.push(`${step}:${kind}`);
      expect({ step, kind, stale: await stale() }).toEqual({ step, kind, stale: [] });
      const [copies] = await q(`SELECT (SELECT count(*)::int FROM users WHERE cardinality(user_group_ids) > 0) AS grouped,
        (SELECT cardinality(no_helpdesk_group_ids) FROM organizations WHERE id = $1) AS marked`, [orgId]);
      seen.grouped = Math.max(seen.grouped, copies.grouped);
      seen.marked = Math.max(seen.marked, copies.marked);
    }
    // Every kind of change was made, and the copies were not trivially empty all along.
    expect(new Set(done.map((d) => d.split(':')[1])).size).toBe(12);
    expect(seen.grouped).toBeGreaterThan(1);
    expect(seen.marked).toBeGreaterThan(1);

    // A deleted user takes its memberships with it; TRUNCATE (no row triggers) resets the copies.
    await q(`DELETE FROM users WHERE id = $1`, [users[0].id]);
    expect(await stale()).toEqual([]);
    await q(`INSERT INTO settings (org_id, key, value) VALUES ($1, 'reason_required', 'true') ON CONFLICT (org_id, key) DO UPDATE SET value = 'true'`, [orgId]);
    await q('TRUNCATE user_group_members');
    await q('TRUNCATE settings');
    await q('TRUNCATE resource_groups CASCADE');
    expect(await stale()).toEqual([]);
    expect(
      await q(`SELECT 1 FROM users WHERE user_group_ids <> '{}' UNION ALL SELECT 1 FROM organizations WHERE reason_required OR ticketing_enabled OR no_helpdesk_group_ids <> '{}'`),
    ).toEqual([]);
  });

  it('concurrent changes of one user or one organisation all land', async () => {
    const user = await createUserWithToken(s, 'cols-race');
    const [g1, g2, g3] = await Promise.all(
      ['race-a', 'race-b', 'race-c'].map(async (n) => (await q('INSERT INTO user_groups (org_id, name, name_key) VALUES ($1, $2, $2) RETURNING id', [orgId, n]))[0].id),
    );
    await q('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2)', [g3, user.id]);
    const clients = [0, 1, 2].map(() => new Client({ connectionString: s.databaseUrl }));
    await Promise.all(clients.map((c) => c.connect()));
    const [one, two, three] = clients;
    const blocked = (statement: Promise<unknown>, client: Client) => untilBlockedOrDone(s.dataSource, statement, client);
    try {
      // Two additions and a removal of the same user's memberships, in three transactions
      // that overlap: the later ones wait on the user's row and then apply to the newest version.
      await Promise.all(clients.map((c) => c.query('BEGIN')));
      await one.query('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2)', [g1, user.id]);
      const second = two.query('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2)', [g2, user.id]);
      const third = three.query('DELETE FROM user_group_members WHERE group_id = $1 AND user_id = $2', [g3, user.id]);
      await Promise.all([blocked(second, two), blocked(third, three)]);
      await one.query('COMMIT');
      // Whichever of the two waiting transactions gets the row first commits first.
      await Promise.all([commitWhenDone(two, second), commitWhenDone(three, third)]);
      const [row] = await q('SELECT ARRAY(SELECT x FROM unnest(user_group_ids) x ORDER BY x) AS ids FROM users WHERE id = $1', [user.id]);
      expect(row.ids).toEqual([g1, g2].sort((a, b) => a - b));

      // Both gate settings of one organisation written at once.
      await Promise.all([one.query('BEGIN'), two.query('BEGIN')]);
      await one.query(`INSERT INTO settings (org_id, key, value) VALUES ($1, 'reason_required', 'true') ON CONFLICT (org_id, key) DO UPDATE SET value = 'true'`, [orgId]);
      const other = two.query(`INSERT INTO settings (org_id, key, value) VALUES ($1, 'ticketing_enabled', 'true') ON CONFLICT (org_id, key) DO UPDATE SET value = 'true'`, [orgId]);
      await blocked(other, two);
      await one.query('COMMIT');
      await other;
      await two.query('COMMIT');
      expect(await q('SELECT reason_required, ticketing_enabled FROM organizations WHERE id = $1', [orgId])).toEqual([{ reason_required: true, ticketing_enabled: true }]);
      expect(await stale()).toEqual([]);

      // Two groups marked and one new marked group, at once: every id lands in the array.
      const marks = await Promise.all(
        ['race-rg-a', 'race-rg-b'].map(async (n) => (await q(`INSERT INTO resource_groups (org_id, name, name_key, kind) VALUES ($1, $2, $2, 'static') RETURNING id`, [orgId, n]))[0].id),
      );
      await Promise.all([one.query('BEGIN'), two.query('BEGIN')]);
      await one.query('UPDATE resource_groups SET no_helpdesk_retrieval = true WHERE id = $1', [marks[0]]);
      const marking = two.query('UPDATE resource_groups SET no_helpdesk_retrieval = true WHERE id = $1', [marks[1]]);
      const created = three.query(`INSERT INTO resource_groups (org_id, name, name_key, kind, no_helpdesk_retrieval) VALUES ($1, 'race-rg-c', 'race-rg-c', 'static', true) RETURNING id`, [orgId]);
      await Promise.all([blocked(marking, two), blocked(created, three)]);
      await one.query('COMMIT');
      await commitWhenDone(two, marking);
      const {
        rows: [{ id: markedAtBirth }],
      } = await created;
      const [org] = await q('SELECT ARRAY(SELECT x FROM unnest(no_helpdesk_group_ids) x ORDER BY x) AS ids FROM organizations WHERE id = $1', [orgId]);
      expect(org.ids).toEqual(expect.arrayContaining([marks[0], marks[1], markedAtBirth]));
      expect(await stale()).toEqual([]);
    } finally {
      await q(`DELETE FROM settings WHERE org_id = $1`, [orgId]);
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it('the password read follows a change at once: a setting turned on and off, a group marked and unmarked, a membership removed', async () => {
    const reader = await createUserWithToken(s, 'cols-reader', 'Password User');
    const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'cols-res', PASSWORD: 'Cols-Read-1' });
    const [group] = await q(`INSERT INTO user_groups (org_id, name, name_key) VALUES ($1, 'cols-readers', 'cols-readers') RETURNING id`, [orgId]);
    await q('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2)', [group.id, reader.id]);
    await q(`INSERT INTO shares (resource_id, user_group_id, access_type) VALUES ($1, $2, 'view')`, [r.resourceId, group.id]);
    const read = (input?: Record<string, string>) => {
      const call = request(s.vaultUrl).get(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`).set('AUTHTOKEN', reader.token);
      return input ? call.query({ INPUT_DATA: inputData(input) }) : call;
    };
    expect((await read()).body.operation.Details?.PASSWORD).toBe('Cols-Read-1');

    await q(`INSERT INTO settings (org_id, key, value) VALUES ($1, 'reason_required', 'true')`, [orgId]);
    expect((await read()).body.operation.result.message).toMatch(/^REASON is required/);
    expect((await read({ REASON: 'deploy' })).body.operation.Details?.PASSWORD).toBe('Cols-Read-1');
    await q(`UPDATE settings SET value = 'false' WHERE org_id = $1 AND key = 'reason_required'`, [orgId]);
    expect((await read()).body.operation.Details?.PASSWORD).toBe('Cols-Read-1');

    // The help-desk rule: the resource joins a group, which is then marked and unmarked.
    const [rg] = await q(`INSERT INTO resource_groups (org_id, name, name_key, kind) VALUES ($1, 'cols-helpdesk', 'cols-helpdesk', 'static') RETURNING id`, [orgId]);
    await q('INSERT INTO resource_group_members (group_id, resource_id) VALUES ($1, $2)', [rg.id, r.resourceId]);
    expect((await read()).body.operation.Details?.PASSWORD).toBe('Cols-Read-1');
    await q('UPDATE resource_groups SET no_helpdesk_retrieval = true WHERE id = $1', [rg.id]);
    expect((await read()).body.operation.result.status).toBe('Failed');
    await q('UPDATE resource_groups SET no_helpdesk_retrieval = false WHERE id = $1', [rg.id]);
    expect((await read()).body.operation.Details?.PASSWORD).toBe('Cols-Read-1');

    await q('DELETE FROM user_group_members WHERE group_id = $1 AND user_id = $2', [group.id, reader.id]);
    expect((await read()).body.operation.result).toEqual({ status: 'Failed', message: 'No such account found' });
    const audit = await q(`SELECT outcome FROM audit WHERE actor_id = $1 AND category = 'Resource' ORDER BY id`, [reader.id]);
    expect(audit.map((a: { outcome: string }) => a.outcome)).toEqual(['Success', 'Failed', 'Success', 'Success', 'Success', 'Failed', 'Success', 'Failed']);
  });
});
