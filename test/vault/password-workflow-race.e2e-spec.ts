import { startTestServices, TestServices } from '../support/app';
import { controlledResource, eventually, TestUser, user, workflow } from './workflow-helpers';

const USERS = 200;
const FAST = { SWEEP_INTERVAL_MS: '200', DB_POOL_SIZE: '10' };

/** Runs `fn` over `items`, `width` at a time. */
async function inChunks<T, R>(items: T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) {
    out.push(...(await Promise.all(items.slice(i, i + width).map((item, j) => fn(item, i + j)))));
  }
  return out;
}

describe('vault password workflow: two instances on one database', () => {
  let a: TestServices;
  let b: TestServices;
  let owner: TestUser;

  beforeAll(async () => {
    a = await startTestServices(FAST);
    b = await startTestServices({ ...FAST, DATA_DIR: a.config.dataDir }, a.databaseUrl);
    owner = await user(a, 'Password Administrator', 'owner');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const via = (i: number) => workflow(i % 2 === 0 ? a.vaultUrl : b.vaultUrl);

  it(`lets exactly one of ${USERS} concurrent check-outs of one exclusive account succeed`, async () => {
    const r = await controlledResource(a, owner, {});
    const users = await inChunks(Array.from({ length: USERS }), 20, () => user(a, 'Password User', 'racer'));
    await a.dataSource.query(
      `INSERT INTO shares (resource_id, user_id, access_type) SELECT $1, unnest($2::int[]), 'view'`,
      [r.resourceId, users.map((u) => u.id)],
    );
    await inChunks(users, 25, async (u, i) => expect((await via(i).request(u, r.accountId)).result.status).toBe('Success'));
    await inChunks(users, 25, async (u, i) => expect((await via(i).approve(owner, r.accountId, u.id)).result.status).toBe('Success'));

    const answers = await Promise.all(users.map((u, i) => via(i).checkout(u, r.accountId)));

    const winners = answers.filter((op) => op.result.status === 'Success');
    expect(winners).toHaveLength(1);
    expect(winners[0].Details).toEqual({ STATUS: '***** [checkIn]' });
    const losers = answers.filter((op) => op.result.status !== 'Success');
    expect(losers).toHaveLength(USERS - 1);
    for (const op of losers) expect(op.result).toEqual({ status: 'Failed', message: 'The password is already checked out by another user' });
    const [{ n }] = await a.dataSource.query(`SELECT count(*)::int AS n FROM password_requests WHERE status = 'checked_out'`);
    expect(n).toBe(1);
    const [{ audits }] = await a.dataSource.query(`SELECT count(*)::int AS audits FROM audit WHERE operation = 'Password Checked Out' AND account_id = $1`, [
      r.accountId,
    ]);
    expect(audits).toBe(1);

    // The holder reads the password through either instance; everyone else sees it in use.
    const winner = users[answers.indexOf(winners[0])];
    const other = users.find((u) => u !== winner)!;
    expect((await via(0).password(winner, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: r.password });
    expect((await via(1).password(other, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: '[ In use ]' });
  });

  it('is guarded by the database itself: a second exclusive check-out violates the unique index', async () => {
    const r = await controlledResource(a, owner, { APPROVAL_REQUIRED: 'false' });
    const [x, y] = [await user(a, 'Password User', 'idx'), await user(a, 'Password User', 'idx')];
    const insert = (uid: number) =>
      a.dataSource.query(
        `INSERT INTO password_requests (account_id, requester_id, status, exclusive, expires_at, checkout_until)
         VALUES ($1, $2, 'checked_out', true, now() + interval '1 hour', now() + interval '1 hour')`,
        [r.accountId, uid],
      );
    await insert(x.id);
    await expect(insert(y.id)).rejects.toMatchObject({ code: '23505' });
  });

  it('checks each timed-out check-out in exactly once when both instances sweep', async () => {
    const holder = await user(a, 'Password User', 'holder');
    const resources = await inChunks(Array.from({ length: 12 }), 6, async () => {
      const r = await controlledResource(a, owner, { APPROVAL_REQUIRED: 'false', CHECKOUT_MINUTES: '0.02', RESET_AFTER_CHECKIN: 'true' });
      await a.dataSource.query(`INSERT INTO shares (resource_id, user_id, access_type) VALUES ($1, $2, 'view')`, [r.resourceId, holder.id]);
      return r;
    });
    await inChunks(resources, 6, async (r, i) => {
      await via(i).request(holder, r.accountId);
      expect((await via(i + 1).checkout(holder, r.accountId)).result.status).toBe('Success');
    });
    const ids = resources.map((r) => r.accountId);
    await eventually(async () => {
      const [{ n }] = await a.dataSource.query(`SELECT count(*)::int AS n FROM password_requests WHERE account_id = ANY($1) AND status = 'checked_in'`, [ids]);
      return n === ids.length;
    });
    const history = await a.dataSource.query(`SELECT account_id, count(*)::int AS n FROM password_history WHERE account_id = ANY($1) GROUP BY account_id`, [ids]);
    expect(history).toHaveLength(ids.length);
    for (const row of history) expect(row.n).toBe(1);
    const [{ checkins }] = await a.dataSource.query(
      `SELECT count(*)::int AS checkins FROM audit WHERE operation = 'Password Checked In' AND account_id = ANY($1)`,
      [ids],
    );
    expect(checkins).toBe(ids.length);
  });
});
