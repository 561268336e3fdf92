import { execFileSync } from 'node:child_process';
import { createServer, Server } from 'node:http';
import request from 'supertest';
import { verifyRotationEvent } from '../../apps/vault/src/rotation/rotation-webhook';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { startSmtpSink, SmtpSink } from '../support/smtp-sink';
import { startSshd, type SshdFixture } from '../support/sshd';
import { call, share, user, workflow } from './workflow-helpers';
import { freePort } from '../support/free-port';

const V1 = '/restapi/json/v1';
const SECRET = 'rotation-webhook-test-secret';
const ADMIN_PASSWORD = 'Adm1n-Pass-word';

interface Hook {
  body: string;
  signature: string;
}

/** Scheduled rotation of a resource group over SSH, with the webhook and the failure notice. */
describe('scheduled password rotation (CONFIGURE PASSWORD ROTATION)', () => {
  let s: TestServices;
  let sshd: SshdFixture;
  let smtp: SmtpSink;
  let hookServer: Server;
  const hooks: Hook[] = [];
  let admin: string;
  const users: string[] = [];
  let resourceId: number;
  let groupId: number;

  const put = (path: string, details: Record<string, unknown>, token = s.adminToken) =>
    request(s.vaultUrl).put(`${V1}${path}`).set('AUTHTOKEN', token).type('form').send({ INPUT_DATA: inputData(details) });
  const storedPassword = async (aid: number) =>
    (await request(s.vaultUrl).get(`${V1}/resources/${resourceId}/accounts/${aid}/password`).set('AUTHTOKEN', s.adminToken)).body.operation.Details.PASSWORD;
  const accountIds = async (rid: number): Promise<Record<string, number>> => {
    const res = await request(s.vaultUrl).get(`${V1}/resources/${rid}/accounts`).set('AUTHTOKEN', s.adminToken);
    return Object.fromEntries(res.body.operation.Details['ACCOUNT LIST'].map((a: Record<string, string>) => [a['ACCOUNT NAME'], Number(a['ACCOUNT ID'])]));
  };
  const makeGroup = async (name: string, rid: number) => {
    const made = await request(s.vaultUrl)
      .post(`${V1}/resourcegroup`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ critgroup: name, GROUPTYPE: 'static' }) });
    const gid = Number(made.body.operation.Details.RESOURCEGROUPID);
    expect((await put(`/resourcegroup/${gid}/resources`, { RESOURCEIDS: [String(rid)] })).body.operation.result.status).toBe('Success');
    return gid;
  };
  const until = async (what: string, check: () => Promise<boolean>, ms = 45_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    const [hookPort, smtpPort] = [await freePort(), await freePort()];
    hookServer = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hooks.push({ body, signature: String(req.headers['x-vault-signature']) });
        res.end('ok');
      });
    }).listen(hookPort, '127.0.0.1');
    smtp = await startSmtpSink(smtpPort);
    [s, sshd] = await Promise.all([
      startTestServices({
        ROTATION_TICK_MS: '200',
        ROTATION_CONCURRENCY: '1',
        ROTATION_WEBHOOK_URL: `http://127.0.0.1:${hookPort}/rotated`,
        ROTATION_WEBHOOK_SECRET: SECRET,
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtpPort),
        SMTP_TLS: 'off',
        SMTP_FROM: 'vault@example.test',
        DB_POOL_SIZE: '8',
      }),
      startSshd(),
    ]);
    admin = await sshd.createUser(ADMIN_PASSWORD, { sudo: true });
    for (let i = 0; i < 3; i++) users.push(await sshd.createUser(`Old-Pass-word-${i}`));
    const resource = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'rot-host', DNSNAME: '127.0.0.1', ACCOUNTNAME: admin, PASSWORD: ADMIN_PASSWORD });
    resourceId = resource.resourceId;
    const added = await request(s.vaultUrl)
      .post(`${V1}/resources/${resourceId}/accounts`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ ACCOUNTLIST: users.map((u, i) => ({ ACCOUNTNAME: u, PASSWORD: `Old-Pass-word-${i}` })) }) });
    expect(added.body.operation.result.status).toBe('Success');
    const configured = await put(`/resources/${resourceId}/remotepasswordreset`, { ACCOUNTNAME: admin, PORT: String(sshd.port) });
    expect(configured.body.operation.result.status).toBe('Success');
    groupId = await makeGroup('rotated-hosts', resourceId);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await sshd?.stop();
    await smtp?.stop();
    hookServer?.close();
  });

  it('refuses bad schedules naming the field, and callers who may not change the group', async () => {
    const bad = await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'fortnights' });
    expect(bad.body.operation).toEqual({
      name: 'CONFIGURE PASSWORD ROTATION',
      result: { status: 'Failed', message: 'INTERVALUNIT must be one of: minutes, hours, days' },
    });
    const other = await createUserWithToken(s, 'rot-other-admin', 'Administrator');
    const refused = await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'true', INTERVAL: '1' }, other.token);
    expect(refused.body.operation.result).toEqual({ status: 'Failed', message: 'Only the creator of resource group rotated-hosts or a super administrator can change it' });
    const missing = await put(`/resourcegroup/99999999/passwordrotation`, { ENABLED: 'true', INTERVAL: '1' });
    expect(missing.body.operation.result).toEqual({ status: 'Failed', message: 'No such resource group found' });
    const [{ n }] = await s.dataSource.query('SELECT count(*)::int AS n FROM rotation_schedules');
    expect(n).toBe(0);
  });

  it('rotates every account of the group once per due time, on the host, audited and announced', async () => {
    const ids = await accountIds(resourceId);
    const before = Object.fromEntries(await Promise.all(Object.values(ids).map(async (id) => [id, await storedPassword(id)])));
    const res = await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'true', INTERVAL: '0.05', INTERVALUNIT: 'minutes', RETRIES: '1', RETRYINTERVAL: '0.02' });
    expect(res.body.operation.result).toEqual({ status: 'Success', message: 'Password rotation of resource group rotated-hosts configured successfully' });
    expect(res.body.operation.Details).toMatchObject({ ENABLED: 'true', INTERVAL: '0.05', INTERVALUNIT: 'minutes', RETRIES: '1', RETRYINTERVAL: '0.02', LASTRUN: '' });
    expect(res.body.operation.Details.NEXTRUN).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);

    // Two due times rotate every account twice.
    await until('two rounds of rotation', async () => {
      const [{ n }] = await s.dataSource.query(`SELECT count(*)::int AS n FROM rotation_runs WHERE status = 'done'`);
      return n >= 2 * Object.keys(ids).length;
    });
    await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'false' });
    await until('runs in flight to finish', async () => (await s.dataSource.query(`SELECT 1 FROM rotation_runs WHERE status = 'due'`)).length === 0);

    const runs: { account_id: number; due_at: Date; status: string }[] = await s.dataSource.query('SELECT account_id, due_at, status FROM rotation_runs ORDER BY id');
    expect(runs.every((r) => r.status === 'done')).toBe(true);
    const rotated = await s.dataSource.query(
      `SELECT account_id, count(*)::int AS n FROM audit WHERE operation = 'Password Rotated' AND actor_id IS NULL AND actor_name = 'System' GROUP BY account_id ORDER BY account_id`,
    );
    // Audit and runs agree: one rotation per account and due time.
    const perAccount = new Map<number, number>();
    for (const r of runs) perAccount.set(r.account_id, (perAccount.get(r.account_id) ?? 0) + 1);
    expect(rotated.map((r: { account_id: number; n: number }) => [r.account_id, r.n])).toEqual([...perAccount.entries()].sort((a, b) => a[0] - b[0]));
    for (const [name, id] of Object.entries(ids)) {
      const now = await storedPassword(id);
      expect(now).not.toBe(before[id]);
      expect(await sshd.clientLogin(name, { password: now })).toMatchObject({ ok: true });
    }
    const [audit] = await s.dataSource.query(`SELECT description FROM audit WHERE operation = 'Password Rotated' LIMIT 1`);
    expect(audit.description).toBe('Scheduled rotation; started by rotation schedule of resource group rotated-hosts');

    const shown = await request(s.vaultUrl).get(`${V1}/resourcegroup/${groupId}/passwordrotation`).set('AUTHTOKEN', s.adminToken);
    expect(shown.body.operation.Details).toMatchObject({ ENABLED: 'false', NEXTRUN: '' });
    expect(shown.body.operation.Details.LASTRUN).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);

    await until('every event delivered', async () => hooks.length >= runs.length);
    const nowSeconds = Math.floor(Date.now() / 1000);
    for (const hook of hooks) {
      expect(verifyRotationEvent(SECRET, hook.body, hook.signature, nowSeconds)).toBe(true);
      const event = JSON.parse(hook.body);
      expect(Object.keys(event).sort()).toEqual(['account', 'accountId', 'event', 'id', 'outcome', 'resource', 'resourceId', 'time', 'trigger']);
      expect(event).toMatchObject({ event: 'password.rotated', resource: 'rot-host', resourceId, outcome: 'rotated' });
      for (const id of Object.values(ids)) expect(hook.body).not.toContain(await storedPassword(id));
    }
  }, 120_000);

  it('retries a failing rotation, then records, audits, mails and announces the failure', async () => {
    const lockedOut = await sshd.createUser('Lock-Pass-word-1', { sudo: true });
    const resource = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'broken-host', DNSNAME: '127.0.0.1', ACCOUNTNAME: lockedOut, PASSWORD: 'Lock-Pass-word-1' });
    expect((await put(`/resources/${resource.resourceId}/remotepasswordreset`, { ACCOUNTNAME: lockedOut, PORT: String(sshd.port) })).body.operation.result.status).toBe('Success');
    // Behind the vault's back: the stored administrator password no longer logs in.
    execFileSync('chpasswd', { input: `${lockedOut}:Changed-Elsewhere-9\n` });
    const gid = await makeGroup('broken-hosts', resource.resourceId);
    hooks.length = 0;
    const res = await put(`/resourcegroup/${gid}/passwordrotation`, { ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'days', RETRIES: '1', RETRYINTERVAL: '0.02', NOTIFY: 'ops@example.test' });
    expect(res.body.operation.result.status).toBe('Success');
    await s.dataSource.query('UPDATE rotation_schedules SET next_run = now() WHERE group_id = $1', [gid]);

    await until('the failure after the retry', async () => (await s.dataSource.query(`SELECT 1 FROM rotation_runs WHERE group_id = $1 AND status = 'failed'`, [gid])).length === 1);
    const [run] = await s.dataSource.query('SELECT attempts, message FROM rotation_runs WHERE group_id = $1', [gid]);
    expect(run.attempts).toBe(2);
    expect(run.message).toMatch(/authentication|password|refused|log in/i);
    const failed = await s.dataSource.query(`SELECT outcome, actor_id, actor_name, account_name, description FROM audit WHERE operation = 'Password Rotation Failed'`);
    expect(failed).toEqual([{ outcome: 'Failed', actor_id: null, actor_name: 'System', account_name: lockedOut, description: expect.stringMatching(/^By the rotation schedule of resource group broken-hosts, after 2 attempts: /) }]);
    expect(await storedPassword2(resource.resourceId, resource.accountId)).toBe('Lock-Pass-word-1');
    const details = await request(s.vaultUrl).get(`${V1}/resources/${resource.resourceId}/accounts/${resource.accountId}`).set('AUTHTOKEN', s.adminToken);
    expect(details.body.operation.Details['PASSWORD SYNC STATUS']).toBe('ROTATION FAILED');
    await until('the failure event', async () => hooks.some((h) => JSON.parse(h.body).outcome === 'failed'));
    await until('the failure mail', async () => smtp.messages().some((m) => m.includes('Password rotation failed') && m.includes(lockedOut)));
    await put(`/resourcegroup/${gid}/passwordrotation`, { ENABLED: 'false' });
  }, 120_000);

  it('rotates an account under an exclusive check-out only when it is checked in', async () => {
    const w = workflow(s.vaultUrl);
    const ids = await accountIds(resourceId);
    const held = ids[users[0]];
    const owner = { id: 0, token: s.adminToken, name: 'admin' };
    const before = await storedPassword(held);
    expect((await call(s.vaultUrl, 'put', `${V1}/resources/${resourceId}/accounts/${held}/accesscontrol`, s.adminToken, {})).result.status).toBe('Success');
    const alice = await user(s);
    await share(s, resourceId, alice.id);
    expect((await w.request(alice, held, { REASON: 'maintenance' })).result.status).toBe('Success');
    expect((await w.approve(owner, held, alice.id)).result.status).toBe('Success');
    expect((await w.checkout(alice, held)).result.status).toBe('Success');

    const rotatedRows = () => s.dataSource.query(`SELECT id FROM audit WHERE account_id = $1 AND operation = 'Password Rotated'`, [held]);
    const rotatedBefore = (await rotatedRows()).length;
    await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'days' });
    await s.dataSource.query('UPDATE rotation_schedules SET next_run = now() WHERE group_id = $1', [groupId]);
    await until('the other accounts to rotate', async () => {
      const rows = await s.dataSource.query(`SELECT account_id, status, message FROM rotation_runs WHERE group_id = $1 AND due_at = (SELECT max(due_at) FROM rotation_runs WHERE group_id = $1)`, [groupId]);
      return rows.length === Object.keys(ids).length && rows.filter((r: { status: string }) => r.status === 'done').length === rows.length - 1;
    });
    const [waiting] = await s.dataSource.query(`SELECT status, message FROM rotation_runs WHERE account_id = $1 AND status = 'due'`, [held]);
    expect(waiting).toEqual({ status: 'due', message: 'Waiting for the check-in of an exclusive check-out' });
    expect((await rotatedRows()).length).toBe(rotatedBefore);

    expect((await w.checkin(alice, held, alice.id)).result.status).toBe('Success');
    await until('the rotation after the check-in', async () => (await s.dataSource.query(`SELECT 1 FROM rotation_runs WHERE account_id = $1 AND status = 'due'`, [held])).length === 0);
    await call(s.vaultUrl, 'put', `${V1}/resources/${resourceId}/accounts/${held}/accesscontrol`, s.adminToken, { ENABLED: 'false' });
    const now = await storedPassword(held);
    expect(now).not.toBe(before);
    expect((await rotatedRows()).length).toBe(rotatedBefore + 1);
    expect(await sshd.clientLogin(users[0], { password: now })).toMatchObject({ ok: true });
    await put(`/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'false' });
  }, 120_000);

  it("rotates only the accounts the schedule's owner may change, whatever the group matches", async () => {
    const bob = await createUserWithToken(s, 'rot-bob', 'Administrator');
    const bobAdmin = await sshd.createUser('Bob-Adm1n-word', { sudo: true });
    const own = await createResource(s.vaultUrl, bob.token, { RESOURCENAME: 'bob-host', DNSNAME: '127.0.0.1', ACCOUNTNAME: bobAdmin, PASSWORD: 'Bob-Adm1n-word' });
    expect((await put(`/resources/${own.resourceId}/remotepasswordreset`, { ACCOUNTNAME: bobAdmin, PORT: String(sshd.port) }, bob.token)).body.operation.result.status).toBe('Success');
    // A dynamic group of bob's matches every "host", rot-host (which bob cannot see) included.
    const made = await request(s.vaultUrl)
      .post(`${V1}/resourcegroup`)
      .set('AUTHTOKEN', bob.token)
      .type('form')
      .send({ INPUT_DATA: inputData({ critgroup: 'all-hosts', NoOfCriteria: '1', condition_1: 'RESOURCENAME', operator_1: 'CONTAINS', valuefield_1: 'host' }) });
    const gid = Number(made.body.operation.Details.RESOURCEGROUPID);
    const members = await s.dataSource.query('SELECT resource_id FROM resource_group_membership WHERE group_id = $1', [gid]);
    expect(members.length).toBeGreaterThan(1);
    expect((await put(`/resourcegroup/${gid}/passwordrotation`, { ENABLED: 'true', INTERVAL: '1', INTERVALUNIT: 'days' }, bob.token)).body.operation.result.status).toBe('Success');
    await s.dataSource.query('UPDATE rotation_schedules SET next_run = now() WHERE group_id = $1', [gid]);
    await until('bob-host rotated', async () => (await s.dataSource.query(`SELECT 1 FROM rotation_runs WHERE group_id = $1 AND status = 'done'`, [gid])).length === 1);
    await put(`/resourcegroup/${gid}/passwordrotation`, { ENABLED: 'false' }, bob.token);
    const runs = await s.dataSource.query('SELECT account_id FROM rotation_runs WHERE group_id = $1', [gid]);
    expect(runs).toEqual([{ account_id: own.accountId }]);
  }, 120_000);

  it('announces a remote change and a reconcile on the webhook too', async () => {
    const ids = await accountIds(resourceId);
    const aid = ids[users[1]];
    hooks.length = 0;
    const changed = await put(`/resources/${resourceId}/accounts/${aid}/password`, { NEWPASSWORD: 'Remote-Pass-word-7', RESETTYPE: 'REMOTE' });
    expect(changed.body.operation.result.status).toBe('Success');
    const reconciled = await request(s.vaultUrl)
      .post(`${V1}/resources/${resourceId}/accounts/${aid}/reconcile`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({}) });
    expect(reconciled.body.operation.result.status).toBe('Success');
    // Events of the tests before may still arrive: this account's are the ones asked about.
    const mine = () => hooks.filter((h) => JSON.parse(h.body).accountId === aid);
    await until('both events', async () => mine().length >= 2);
    const events = mine().map((h) => JSON.parse(h.body));
    expect(events.map((e) => [e.accountId, e.outcome, e.trigger])).toEqual([
      [aid, 'rotated', 'remote password change by admin'],
      [aid, 'rotated', 'reconcile by admin'],
    ]);
    for (const hook of mine()) expect(hook.body).not.toContain(await storedPassword(aid));
    expect(mine()[0].body).not.toContain('Remote-Pass-word-7');
  }, 120_000);

  const storedPassword2 = async (rid: number, aid: number) =>
    (await request(s.vaultUrl).get(`${V1}/resources/${rid}/accounts/${aid}/password`).set('AUTHTOKEN', s.adminToken)).body.operation.Details.PASSWORD;
});
