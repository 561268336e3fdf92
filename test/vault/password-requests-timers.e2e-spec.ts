import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { startTestServices, TestServices } from '../support/app';
import { controlledResource, eventually, requestStatus, share, TestUser, user, workflow } from './workflow-helpers';

// Timers use fractions of a minute (0.03 min = 1.8 s) and a 200 ms sweep interval.
const FAST = { SWEEP_INTERVAL_MS: '200' };

describe('vault password workflow: timers, restarts and crash safety', () => {
  let s: TestServices;
  let w: ReturnType<typeof workflow>;
  let owner: TestUser;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    s = await startTestServices(FAST);
    w = workflow(s.vaultUrl);
    owner = await user(s, 'Password Administrator', 'owner');
    alice = await user(s, 'Password User', 'alice');
    bob = await user(s, 'Password User', 'bob');
  });
  afterAll(() => s.close());

  async function setup(settings: Record<string, string>) {
    const r = await controlledResource(s, owner, { APPROVAL_REQUIRED: 'false', ...settings });
    await share(s, r.resourceId, alice.id);
    await share(s, r.resourceId, bob.id);
    return r;
  }

  const passwordBlob = async (ds: DataSource, accountId: number): Promise<Buffer> =>
    (await ds.query('SELECT password FROM accounts WHERE id = $1', [accountId]))[0].password;
  const historyCount = async (ds: DataSource, accountId: number): Promise<number> =>
    (await ds.query('SELECT count(*)::int AS n FROM password_history WHERE account_id = $1', [accountId]))[0].n;

  it('checks the password in by itself when the check-out time runs out, with the reset', async () => {
    const r = await setup({ CHECKOUT_MINUTES: '0.03', RESET_AFTER_CHECKIN: 'true' });
    await w.request(alice, r.accountId);
    expect((await w.checkout(alice, r.accountId)).result.status).toBe('Success');
    expect((await w.password(alice, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: r.password });
    await eventually(async () => (await requestStatus(s, r.accountId, alice.id)) === 'checked_in');
    const [audit] = await s.dataSource.query(`SELECT actor_id, description FROM audit WHERE operation = 'Password Checked In' AND account_id = $1`, [
      r.accountId,
    ]);
    expect(audit).toEqual({ actor_id: null, description: 'Checked in automatically at the end of the check-out time' });
    expect(await historyCount(s.dataSource, r.accountId)).toBe(1);
    expect((await w.password(alice, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: '[Request]' });
    expect((await w.checkin(alice, r.accountId, alice.id)).result).toEqual({
      status: 'Failed',
      message: 'The password has already been checked in: the check-out time ran out',
    });
  });

  it('withholds the password from the holder as soon as the check-out time is over', async () => {
    const r = await setup({ CHECKOUT_MINUTES: '0.01' });
    await w.request(alice, r.accountId);
    await w.checkout(alice, r.accountId);
    await new Promise((done) => setTimeout(done, 700));
    expect((await w.password(alice, r.resourceId, r.accountId)).Details.PASSWORD).toMatch(/^\[/);
  });

  it('expires requests left unanswered', async () => {
    const r = await controlledResource(s, owner, { REQUEST_TTL_MINUTES: '0.02' });
    await share(s, r.resourceId, alice.id);
    await w.request(alice, r.accountId);
    await eventually(async () => (await requestStatus(s, r.accountId, alice.id)) === 'expired');
    expect((await w.approve(owner, r.accountId, alice.id)).result.message).toBe('The password request has expired');
    expect((await w.checkout(alice, r.accountId)).result.message).toBe('The password request has expired');
    const [audit] = await s.dataSource.query(`SELECT request_id FROM audit WHERE operation = 'Password Request Expired' AND account_id = $1`, [
      r.accountId,
    ]);
    expect(audit.request_id).not.toBeNull();
    expect((await w.request(alice, r.accountId)).result.status).toBe('Success');
  });

  it('loses neither password when a local check-in with reset dies mid-transaction', async () => {
    const r = await setup({ RESET_AFTER_CHECKIN: 'true' });
    await w.request(alice, r.accountId);
    await w.checkout(alice, r.accountId);
    const before = await passwordBlob(s.dataSource, r.accountId);
    // A fault after the new password and the history row were written, before commit.
    await s.dataSource.query(`CREATE FUNCTION fail_checkin() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.status = 'checked_in' THEN RAISE EXCEPTION 'simulated crash'; END IF; RETURN NEW; END $$`);
    await s.dataSource.query('CREATE TRIGGER fail_checkin BEFORE UPDATE ON password_requests FOR EACH ROW EXECUTE FUNCTION fail_checkin()');
    try {
      const failed = await w.checkin(alice, r.accountId, alice.id);
      expect(failed.result.status).toBe('Failed');
    } finally {
      await s.dataSource.query('DROP TRIGGER fail_checkin ON password_requests');
      await s.dataSource.query('DROP FUNCTION fail_checkin()');
    }
    expect(Buffer.compare(await passwordBlob(s.dataSource, r.accountId), before)).toBe(0);
    expect(await historyCount(s.dataSource, r.accountId)).toBe(0);
    expect(await requestStatus(s, r.accountId, alice.id)).toBe('checked_out');
    expect((await w.password(alice, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: r.password });

    expect((await w.checkin(alice, r.accountId, alice.id)).result.status).toBe('Success');
    const [history] = await s.dataSource.query('SELECT password FROM password_history WHERE account_id = $1', [r.accountId]);
    expect(Buffer.compare(history.password, before)).toBe(0);
    expect(Buffer.compare(await passwordBlob(s.dataSource, r.accountId), before)).not.toBe(0);
  });

  it('keeps its timers across a restart (last: replaces the services)', async () => {
    const r = await setup({ CHECKOUT_MINUTES: '0.02' });
    await w.request(alice, r.accountId);
    await w.checkout(alice, r.accountId);
    const { databaseUrl, config } = s;
    await s.close();
    await new Promise((done) => setTimeout(done, 1500)); // due while no server runs
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    const { rows } = await db.query('SELECT status FROM password_requests WHERE account_id = $1', [r.accountId]);
    await db.end();
    expect(rows[0].status).toBe('checked_out');
    s = await startTestServices({ ...FAST, DATA_DIR: config.dataDir }, databaseUrl);
    await eventually(async () => (await requestStatus(s, r.accountId, alice.id)) === 'checked_in');
  });
});
