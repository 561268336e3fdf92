import { Client } from 'pg';
import request from 'supertest';
import { createResource } from '../support/factories';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { commitWhenDone, seededRandom, untilBlockedOrDone } from '../support/races';

// The gate asks "under access control?" of accounts.access_control_rows and
// resources.access_control_rows (migration AccessControlRows). A count that fell to zero
// while a row remains would release a password that needs a check-out. These tests hold the
// counts against access_controls after every kind of change, concurrent ones included.
describe('access control counts follow access_controls', () => {
  let s: TestServices;
  const q = (sql: string, params: unknown[] = []) => s.dataSource.query(sql, params);

  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  /** Accounts and resources whose count differs from access_controls (empty when all agree). */
  async function miscounted(): Promise<unknown[]> {
    return q(`SELECT 'account' AS kind, a.id, a.access_control_rows AS counted FROM accounts a
              WHERE a.access_control_rows <> (SELECT count(*) FROM access_controls x WHERE x.account_id = a.id)
              UNION ALL
              SELECT 'resource', r.id, r.access_control_rows FROM resources r
              WHERE r.access_control_rows <> (SELECT count(*) FROM access_controls x WHERE x.resource_id = r.id AND x.account_id IS NULL)`);
  }

  async function accessControl(resourceId: number, accountId: number | null, enabled: boolean) {
    const path = accountId === null ? `/restapi/json/v1/resources/${resourceId}/accesscontrol` : `/restapi/json/v1/resources/${resourceId}/accounts/${accountId}/accesscontrol`;
    const res = await request(s.vaultUrl).put(path).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData({ ENABLED: enabled }) });
    expect(res.body.operation.result.status).toBe('Success');
  }

  it('after 150 seeded-random changes through the access-control API and SQL', async () => {
    const random = seededRandom(7).below;
    const targets = async (): Promise<{ rid: number; aid: number }[]> =>
      q(`SELECT a.resource_id AS rid, a.id AS aid FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.name LIKE 'acr-%'`);
    for (let i = 0; i < 4; i++) {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: `acr-${i}` });
      for (const name of ['second', 'third']) await q('INSERT INTO accounts (resource_id, name, name_key, password) SELECT resource_id, $2, $2, password FROM accounts WHERE id = $1', [r.accountId, `${name}`]);
    }
    const kinds = new Set<number>();
    for (let step = 0; step < 150; step++) {
      const all = await targets();
      const { rid, aid } = all[random(all.length)];
      const kind = random(7);
      kinds.add(kind);
      if (kind === 0) await accessControl(rid, aid, true);
      if (kind === 1) await accessControl(rid, null, true);
      if (kind === 2) await accessControl(rid, random(2) ? aid : null, false);
      if (kind === 3) await q('INSERT INTO access_controls (resource_id, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [rid, random(2) ? aid : null]);
      if (kind === 4) {
        // Moves a row to another target of the same resource (an UPDATE of account_id), when free.
        await q(`UPDATE access_controls x SET account_id = $2 WHERE x.id = (SELECT id FROM access_controls WHERE resource_id = $1 LIMIT 1)
                 AND NOT EXISTS (SELECT 1 FROM access_controls y WHERE y.resource_id = $1 AND y.account_id IS NOT DISTINCT FROM $2)`, [rid, random(2) ? aid : null]);
      }
      if (kind === 5 && all.filter((t) => t.rid === rid).length > 1) await q('DELETE FROM accounts WHERE id = $1', [aid]);
      if (kind === 6) await q(`UPDATE access_controls SET checkout_minutes = checkout_minutes + 1, resource_id = resource_id WHERE resource_id = $1`, [rid]);
      expect({ step, kind, miscounted: await miscounted() }).toEqual({ step, kind, miscounted: [] });
    }
    expect(kinds.size).toBe(7);
    expect((await q(`SELECT count(*)::int AS n FROM accounts WHERE access_control_rows > 0`))[0].n + (await q(`SELECT count(*)::int AS n FROM resources WHERE access_control_rows > 0`))[0].n).toBeGreaterThan(0);

    // A deleted resource takes its rows with it; TRUNCATE (no row triggers) resets the counts.
    const [victim] = await q(`SELECT resource_id FROM access_controls LIMIT 1`);
    await q(`DELETE FROM resources WHERE id = $1`, [victim.resource_id]);
    expect(await miscounted()).toEqual([]);
    await q('TRUNCATE access_controls');
    expect(await miscounted()).toEqual([]);
    expect(await q(`SELECT id FROM accounts WHERE access_control_rows <> 0 UNION ALL SELECT id FROM resources WHERE access_control_rows <> 0`)).toEqual([]);
  });

  it('concurrent changes of one account or one resource all land, and the read follows them at once', async () => {
    const reader = await createUserWithToken(s, 'acr-reader', 'Password Administrator');
    const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'acr-race', PASSWORD: 'Acr-Race-1' });
    await q(`INSERT INTO shares (resource_id, user_id, access_type) VALUES ($1, $2, 'view')`, [r.resourceId, reader.id]);
    const read = async () =>
      (await request(s.vaultUrl).get(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`).set('AUTHTOKEN', reader.token)).body.operation;
    expect((await read()).Details.PASSWORD).toBe('Acr-Race-1');

    const clients = [0, 1, 2].map(() => new Client({ connectionString: s.databaseUrl }));
    await Promise.all(clients.map((c) => c.connect()));
    const [one, two, three] = clients;
    try {
      // An account-level row and a whole-resource row added, and the account's row removed,
      // in three overlapping transactions.
      await q('INSERT INTO access_controls (resource_id, account_id) VALUES ($1, $2)', [r.resourceId, r.accountId]);
      await Promise.all(clients.map((c) => c.query('BEGIN')));
      await one.query('DELETE FROM access_controls WHERE resource_id = $1 AND account_id = $2', [r.resourceId, r.accountId]);
      const added = two.query('INSERT INTO access_controls (resource_id, account_id) VALUES ($1, $2)', [r.resourceId, r.accountId]);
      const whole = three.query('INSERT INTO access_controls (resource_id, account_id) VALUES ($1, NULL)', [r.resourceId]);
      await Promise.all([untilBlockedOrDone(s.dataSource, added, two), untilBlockedOrDone(s.dataSource, whole, three)]);
      await one.query('COMMIT');
      await Promise.all([commitWhenDone(two, added), commitWhenDone(three, whole)]);
      expect(await miscounted()).toEqual([]);
      expect(await q('SELECT access_control_rows FROM accounts WHERE id = $1', [r.accountId])).toEqual([{ access_control_rows: 1 }]);
      expect((await read()).result.status).toBe('Failed');

      // Both rows removed at once: the read is granted again only when no row is left.
      await Promise.all([one.query('BEGIN'), two.query('BEGIN')]);
      await one.query('DELETE FROM access_controls WHERE resource_id = $1 AND account_id IS NULL', [r.resourceId]);
      await two.query('DELETE FROM access_controls WHERE resource_id = $1 AND account_id = $2', [r.resourceId, r.accountId]);
      await one.query('COMMIT');
      expect((await read()).result.status).toBe('Failed');
      await two.query('COMMIT');
      expect(await miscounted()).toEqual([]);
      expect((await read()).Details.PASSWORD).toBe('Acr-Race-1');
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });
});
