import { Client } from 'pg';
import { createResource } from '../support/factories';
import { startTestServices, TestServices } from '../support/app';
import { Json } from '../support/http';
import { seededRandom, untilBlockedOrDone } from '../support/races';
import { vaultClient, VaultClient } from '../vault/vault-client';

// resource_group_membership is kept by triggers; resource_in_group_live is the definition it
// caches. After every change below, through HTTP or straight SQL (the admin command's and a
// migration's path), the table must equal the live definition over every (group, resource)
// pair of one organisation, and the group listing through HTTP must agree with it.

const FIELDS = ['RESOURCENAME', 'RESOURCETYPE', 'DNSNAME', 'DEPARTMENT', 'LOCATION', 'RESOURCEDESCRIPTION', 'RESOURCEURL', 'LOGINNAME', 'ACCOUNTNAME'];
const OPERATORS = ['CONTAINS', 'NOT CONTAINS', 'EQUALS', 'NOT EQUALS', 'STARTS WITH', 'ENDS WITH'];
const WORDS = ['alpha', 'beta', 'gamma', 'web', 'db'];

describe('resource-group membership kept by triggers', () => {
  let s: TestServices;
  let admin: VaultClient;
  beforeAll(async () => {
    s = await startTestServices();
    admin = vaultClient(s, s.adminToken);
  });
  afterAll(() => s.close());

  /** Pairs where the table and the live definition disagree (the live definition evaluated once per pair). */
  const mismatches = (): Promise<Json[]> =>
    s.dataSource.query(`
      WITH live AS MATERIALIZED (
        SELECT r.id AS resource_id, g.id AS group_id FROM resource_groups g JOIN resources r ON r.org_id = g.org_id
        WHERE resource_in_group_live(r.id, g.id))
      SELECT coalesce(t.resource_id, l.resource_id) AS resource_id, coalesce(t.group_id, l.group_id) AS group_id,
             CASE WHEN l.group_id IS NULL THEN 'only in table' ELSE 'only live' END AS why
      FROM resource_group_membership t FULL JOIN live l USING (resource_id, group_id)
      WHERE t.group_id IS NULL OR l.group_id IS NULL`);

  it('equals the live definition after each of 120 random changes, through HTTP and SQL', async () => {
    const rnd = seededRandom(20261123);
    const resources: number[] = [];
    const groups: { id: number; static: boolean }[] = [];
    const word = () => rnd.pick(WORDS) + (rnd.next() < 0.5 ? '' : '-' + rnd.pick(WORDS));
    const criterion = (n: number): Json => ({ [`condition_${n}`]: rnd.pick(FIELDS), [`operator_${n}`]: rnd.pick(OPERATORS), [`valuefield_${n}`]: rnd.pick(WORDS) });
    let n = 0;
    const steps: [string, () => Promise<unknown>][] = [
      ['create resource', async () => {
        const r = await createResource(s.vaultUrl, s.adminToken, {
          RESOURCENAME: `${word()}-${++n}`, DEPARTMENT: word(), LOCATION: word(), DNSNAME: `${word()}.test`, ACCOUNTNAME: word(),
        });
        resources.push(r.resourceId);
      }],
      ['edit resource', async () => {
        if (!resources.length) return;
        const field = rnd.pick(['RESOURCENAME', 'RESOURCETYPE', 'DNSNAME', 'DEPARTMENT', 'LOCATION', 'RESOURCEDESCRIPTION', 'RESOURCEURL', 'NOTES']);
        const value = field === 'RESOURCENAME' ? `${word()}-${++n}` : word();
        const res = await admin.put(`/resources/${rnd.pick(resources)}`, { [field]: value });
        expect(res.body.operation.result.status).toBe('Success');
      }],
      ['add account', async () => {
        if (!resources.length) return;
        const res = await admin.post(`/resources/${rnd.pick(resources)}/accounts`, { ACCOUNTLIST: [{ ACCOUNTNAME: `${word()}${++n}`, PASSWORD: `Pw-${n}-Xy9!long-enough` }] });
        expect(res.body.operation.result.status).toBe('Success');
      }],
      ['rename or delete account (SQL)', async () => {
        const [a] = await s.dataSource.query('SELECT id FROM accounts ORDER BY md5(id::text || $1) LIMIT 1', [String(++n)]);
        if (!a) return;
        if (rnd.next() < 0.5) await s.dataSource.query('UPDATE accounts SET name = $2, name_key = lower($2) WHERE id = $1', [a.id, `${word()}${n}`]);
        else await s.dataSource.query('DELETE FROM accounts WHERE id = $1', [a.id]);
      }],
      ['create dynamic group', async () => {
        const count = 1 + Math.floor(rnd.next() * 3);
        const res = await admin.post('/resourcegroup', {
          critgroup: `dyn-${++n}`, andor: rnd.pick(['and', 'or']), NoOfCriteria: String(count),
          ...Object.assign({}, ...Array.from({ length: count }, (_, i) => criterion(i + 1))),
        });
        expect(res.body.operation.result.status).toBe('Success');
        groups.push({ id: Number(res.body.operation.Details.RESOURCEGROUPID), static: false });
      }],
      ['create static group and add members', async () => {
        const res = await admin.post('/resourcegroup', { critgroup: `static-${++n}`, GROUPTYPE: 'static' });
        const id = Number(res.body.operation.Details.RESOURCEGROUPID);
        groups.push({ id, static: true });
        if (resources.length) {
          const add = await admin.put(`/resourcegroup/${id}/resources`, { RESOURCEIDS: [rnd.pick(resources), rnd.pick(resources)].map(String) });
          expect(add.body.operation.result.status).toBe('Success');
        }
      }],
      ['change a group definition (SQL)', async () => {
        const g = groups.length ? rnd.pick(groups) : undefined;
        if (!g) return;
        const criteria = [{ field: rnd.pick(FIELDS), operator: rnd.pick(OPERATORS), value: rnd.pick(WORDS) }];
        await s.dataSource.query(`UPDATE resource_groups SET kind = $2, match_mode = $3, criteria = $4 WHERE id = $1`, [
          g.id, rnd.next() < 0.2 ? 'static' : 'dynamic', rnd.pick(['and', 'or']), JSON.stringify(criteria),
        ]);
        g.static = (await s.dataSource.query('SELECT kind FROM resource_groups WHERE id = $1', [g.id]))[0].kind === 'static';
      }],
      ['remove a static member (SQL)', async () => {
        await s.dataSource.query('DELETE FROM resource_group_members WHERE ctid = (SELECT ctid FROM resource_group_members ORDER BY md5(ctid::text || $1) LIMIT 1)', [String(++n)]);
      }],
      ['delete resource or group', async () => {
        if (rnd.next() < 0.5 && resources.length > 3) {
          const id = resources.splice(Math.floor(rnd.next() * resources.length), 1)[0];
          expect((await admin.delete(`/resources/${id}`)).body.operation.result.status).toBe('Success');
        } else if (groups.length > 2) {
          const g = groups.splice(Math.floor(rnd.next() * groups.length), 1)[0];
          expect((await admin.delete(`/resourcegroup/${g.id}`)).body.operation.result.status).toBe('Success');
        }
      }],
    ];
    const weights = [5, 4, 3, 2, 3, 2, 2, 1, 1];
    const plan = steps.flatMap((step, i) => Array.from({ length: weights[i] }, () => step));
    for (let i = 0; i < 8; i++) await steps[0][1]();
    for (let i = 0; i < 120; i++) {
      const [name, run] = rnd.pick(plan);
      await run();
      const wrong = await mismatches();
      if (wrong.length) throw new Error(`after step ${i} (${name}): ${JSON.stringify(wrong)}`);
    }
    const [{ pairs }] = await s.dataSource.query('SELECT count(*)::int AS pairs FROM resource_group_membership');
    expect(pairs).toBeGreaterThan(10); // the sequence really built memberships

    // The HTTP listing of each group is the live definition's.
    for (const g of groups) {
      const listed = (await admin.get(`/resourcegroup/${g.id}/resources`)).body.operation.Details ?? [];
      const live = await s.dataSource.query('SELECT r.id FROM resources r JOIN resource_groups g ON g.id = $1 AND g.org_id = r.org_id WHERE resource_in_group_live(r.id, g.id) ORDER BY r.id', [g.id]);
      expect(listed.map((r: Json) => Number(r['RESOURCE ID'])).sort((a: number, b: number) => a - b)).toEqual(live.map((r: Json) => r.id));
    }
  }, 180_000); // 10 s alone; a loaded clean-clone run once took over 60

  describe('concurrent writers (READ COMMITTED, two connections)', () => {
    let one: Client;
    let two: Client;
    beforeEach(async () => {
      one = new Client({ connectionString: s.databaseUrl });
      two = new Client({ connectionString: s.databaseUrl });
      await Promise.all([one.connect(), two.connect()]);
    });
    afterEach(async () => {
      await Promise.all([one.end(), two.end()]);
    });

    const setUp = async (tag: string) => {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: `race-${tag}`, DEPARTMENT: 'before', ACCOUNTNAME: 'svc' });
      const res = await admin.post('/resourcegroup', { critgroup: `race-group-${tag}`, NoOfCriteria: '1', condition_1: 'DEPARTMENT', operator_1: 'EQUALS', valuefield_1: 'nobody' });
      return { rid: r.resourceId, gid: Number(res.body.operation.Details.RESOURCEGROUPID) };
    };
    const member = async (rid: number, gid: number) =>
      (await s.dataSource.query('SELECT 1 FROM resource_group_membership WHERE resource_id = $1 AND group_id = $2', [rid, gid])).length === 1;
    const settle = (waiting: Promise<unknown>, client: Client) => untilBlockedOrDone(s.dataSource, waiting, client);
    const toAfter = JSON.stringify([{ field: 'DEPARTMENT', operator: 'EQUALS', value: 'after' }]);
    const toSvc = JSON.stringify([{ field: 'ACCOUNTNAME', operator: 'EQUALS', value: 'late' }]);

    it.each([
      ['the resource changes first', true],
      ['the group changes first', false],
    ])('a resource and a group changed at once: %s, the pair is a member', async (_, resourceFirst) => {
      const { rid, gid } = await setUp(resourceFirst ? 'r' : 'g');
      await one.query('BEGIN');
      await two.query('BEGIN');
      const resource = () => one.query(`UPDATE resources SET department = 'after' WHERE id = $1`, [rid]);
      const group = () => two.query('UPDATE resource_groups SET criteria = $2 WHERE id = $1', [gid, toAfter]);
      const [first, second] = resourceFirst ? [resource, group] : [group, resource];
      await first();
      const waiting = second(); // blocks on the membership lock until the first commits
      await settle(waiting, resourceFirst ? two : one);
      await (resourceFirst ? one : two).query('COMMIT');
      await waiting;
      await (resourceFirst ? two : one).query('COMMIT');
      expect(await member(rid, gid)).toBe(true);
    });

    it('an account added while its group gains an account-name criterion: the pair is a member', async () => {
      const { rid, gid } = await setUp('a');
      await one.query('BEGIN');
      await two.query('BEGIN');
      await one.query(`INSERT INTO accounts (resource_id, name, name_key, password) VALUES ($1, 'late', 'late', '\\x00')`, [rid]);
      const waiting = two.query('UPDATE resource_groups SET criteria = $2 WHERE id = $1', [gid, toSvc]);
      await settle(waiting, two);
      await one.query('COMMIT');
      await waiting;
      await two.query('COMMIT');
      expect(await member(rid, gid)).toBe(true);
      expect(await mismatches()).toEqual([]);
    });

    it('two resources created at once, each joining a new static group (op 6 RESOURCEGROUPNAME): both commit, no deadlock', async () => {
      const { rid } = await setUp('st');
      const [org] = await s.dataSource.query('SELECT org_id FROM resources WHERE id = $1', [rid]);
      const create = (c: Client, tag: string) =>
        c.query(`INSERT INTO resources (org_id, owner_id, name, name_key, type) SELECT org_id, owner_id, $2, $2, 'Linux' FROM resources WHERE id = $1`, [rid, `st-${tag}`]);
      const group = (c: Client, tag: string) =>
        c.query(`INSERT INTO resource_groups (org_id, name, name_key, kind) VALUES ($1, $2, $2, 'static')`, [org.org_id, `new-static-${tag}`]);
      await one.query('BEGIN');
      await two.query('BEGIN');
      await create(one, 'one');
      await create(two, 'two');
      const first = group(one, 'one');
      await settle(first, one);
      await group(two, 'two');
      await first;
      await one.query('COMMIT');
      await two.query('COMMIT');
      expect(await s.dataSource.query(`SELECT count(*)::int AS n FROM resource_groups WHERE name LIKE 'new-static-%'`)).toEqual([{ n: 2 }]);
    });

    it('refuses to maintain membership from a REPEATABLE READ transaction, which would read stale state', async () => {
      const { rid } = await setUp('rr');
      await one.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await expect(one.query(`UPDATE resources SET department = 'x' WHERE id = $1`, [rid])).rejects.toThrow(/READ COMMITTED or SERIALIZABLE/);
      await one.query('ROLLBACK');
    });
  });
});
