import { AccountSecretGate } from '@app/gate';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { startSshd, type SshdFixture } from '../support/sshd';
import { call, share, TestUser, user, workflow } from '../vault/workflow-helpers';

const V = '/restapi/json/v1';
const ADMIN_PASSWORD = 'Adm1n-Pass-word';
const OLD_PASSWORD = 'Old-Pass-word-1';

/**
 * Issue 24, item 1: every remote operation that logs in with a resource's administrator
 * account passes the gate's use decision on that account (AccountSecretGate.openAdministrator)
 * and writes `Password Used` before connecting; the server's own reset after a check-in is
 * audited as the system actor naming what started it. Against a real sshd.
 */
describe('the use of a resource administrator credential is decided on that credential', () => {
  let s: TestServices;
  let sshd: SshdFixture;
  let w: ReturnType<typeof workflow>;
  let owner: TestUser;
  let intruder: TestUser;
  let alice: TestUser;
  let admin: string;
  let host: { resourceId: number; adminId: number; orgId: number; accounts: Record<string, number> };

  const accountIdOf = async (resourceId: number, name: string): Promise<number> =>
    (await s.dataSource.query('SELECT id FROM accounts WHERE resource_id = $1 AND name = $2', [resourceId, name]))[0].id;
  const auditSince = (after: number) =>
    s.dataSource.query(
      `SELECT operation, outcome, actor_id, actor_name, account_name, description FROM audit WHERE id > $1 AND category = 'Resource' ORDER BY id`,
      [after],
    );
  const maxAudit = async () => Number((await s.dataSource.query('SELECT coalesce(max(id), 0) AS id FROM audit'))[0].id);
  const changeRemote = (u: TestUser, aid: number, password: string) =>
    call(s.vaultUrl, 'put', `${V}/resources/${host.resourceId}/accounts/${aid}/password`, u.token, { NEWPASSWORD: password, RESETTYPE: 'REMOTE', REASON: 'rotation' });
  const accessControl = (aid: number, settings: Record<string, unknown>) =>
    call(s.vaultUrl, 'put', `${V}/resources/${host.resourceId}/accounts/${aid}/accesscontrol`, owner.token, settings);

  beforeAll(async () => {
    [s, sshd] = await Promise.all([startTestServices({ SWEEP_INTERVAL_MS: '3600000' }), startSshd()]);
    w = workflow(s.vaultUrl);
    owner = await user(s, 'Password Administrator', 'adm-owner');
    intruder = await user(s, 'Password Administrator', 'adm-intruder');
    alice = await user(s, 'Password User', 'adm-alice');
    admin = await sshd.createUser(ADMIN_PASSWORD, { sudo: true });
    const names = [await sshd.createUser(OLD_PASSWORD), await sshd.createUser(OLD_PASSWORD), await sshd.createUser(OLD_PASSWORD)];
    const r = await createResource(s.vaultUrl, owner.token, { RESOURCETYPE: 'Linux', DNSNAME: '127.0.0.1', ACCOUNTNAME: admin, PASSWORD: ADMIN_PASSWORD });
    const added = await call(s.vaultUrl, 'post', `${V}/resources/${r.resourceId}/accounts`, owner.token, {
      ACCOUNTLIST: names.map((n) => ({ ACCOUNTNAME: n, PASSWORD: OLD_PASSWORD })),
    });
    expect(added.result.status).toBe('Success');
    const [org] = await s.dataSource.query('SELECT org_id FROM resources WHERE id = $1', [r.resourceId]);
    host = { resourceId: r.resourceId, adminId: r.accountId, orgId: org.org_id, accounts: {} };
    for (const n of names) host.accounts[n] = await accountIdOf(r.resourceId, n);
    const configured = await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/remotepasswordreset`, owner.token, { ACCOUNTNAME: admin, PORT: String(sshd.port) });
    expect(configured.result.status).toBe('Success');
    await share(s, r.resourceId, intruder.id, 'fullaccess');
    await share(s, r.resourceId, alice.id, 'view');
  });
  afterAll(async () => {
    await s?.close();
    await sshd?.stop();
  });

  it('a granted remote change writes Password Used on the administrator, naming where it goes, before the change', async () => {
    const [name] = Object.keys(host.accounts);
    const from = await maxAudit();
    const op = await changeRemote(owner, host.accounts[name], 'First-Remote-Pass-1');
    expect(op.result).toEqual({ status: 'Success', message: 'Password changed successfully' });
    expect((await sshd.clientLogin(name, { password: 'First-Remote-Pass-1' })).ok).toBe(true);
    const rows = await auditSince(from);
    expect(rows.map((r: { operation: string }) => r.operation)).toEqual(['Password Used', 'Password Changed']);
    expect(rows[0]).toMatchObject({ outcome: 'Success', actor_id: owner.id, account_name: admin });
    expect(rows[0].description).toBe(`SSH login to change the password of ${name}; to 127.0.0.1:${sshd.port} (Linux)`);
  });

  it('answers a resource without an administrator, or one the caller cannot see, with nothing opened (gate called directly)', async () => {
    const gate = s.vault.get(AccountSecretGate, { strict: false });
    const bare = await createResource(s.vaultUrl, owner.token);
    const actorOf = (u: TestUser) => ({ id: u.id, orgId: host.orgId, orgName: 'Default', username: u.name, role: 'Password Administrator', isSuperAdmin: false, ip: '127.0.0.1', client: 'test' });
    await expect(gate.openAdministrator(null, { resourceId: bare.resourceId, description: 'x', startedBy: 'test' })).rejects.toThrow(`No administrator account is configured for resource ${bare.name}`);
    await expect(gate.openAdministrator(actorOf(owner), { resourceId: bare.resourceId, description: 'x' })).rejects.toThrow(`No administrator account is configured for resource ${bare.name}`);
    await expect(gate.openAdministrator(null, { resourceId: host.resourceId, description: 'x' })).rejects.toThrow(/names what started it/);
    const stranger = await user(s, 'Password Administrator', 'adm-stranger');
    const from = await maxAudit();
    await expect(gate.openAdministrator(actorOf(stranger), { resourceId: host.resourceId, description: 'x' })).rejects.toThrow('No such account found');
    expect(await auditSince(from)).toEqual([expect.objectContaining({ operation: 'Password Use Denied', outcome: 'Failed', actor_id: stranger.id })]);
  });

  describe('with the administrator account under access control', () => {
    beforeAll(async () => {
      const op = await accessControl(host.adminId, { APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 2, ADMINS_APPROVE: 'true', EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30 });
      expect(op.result.status).toBe('Success');
    });

    it('a full-access caller cannot change another account remotely: refused on the administrator, audited, nothing sent', async () => {
      const name = Object.keys(host.accounts)[1];
      const from = await maxAudit();
      const op = await changeRemote(intruder, host.accounts[name], 'Intruder-Pass-word-1');
      expect(op.result.status).toBe('Failed');
      expect(op.result.message).toMatch(/request it and check it out first/);
      const rows = await auditSince(from);
      expect(rows).toEqual([
        expect.objectContaining({ operation: 'Password Use Denied', outcome: 'Failed', actor_id: intruder.id, account_name: admin, description: 'refused: CHECKOUT' }),
      ]);
      expect((await sshd.clientLogin(name, { password: OLD_PASSWORD })).ok).toBe(true);
    });

    it('the reset after check-in is the system actor\'s use, audited naming the check-in that started it', async () => {
      const name = Object.keys(host.accounts)[2];
      const aid = host.accounts[name];
      const controlled = await accessControl(aid, { APPROVAL_REQUIRED: 'false', RESET_AFTER_CHECKIN: 'true', CHECKOUT_MINUTES: 30 });
      expect(controlled.result.status).toBe('Success');
      expect((await w.request(alice, aid, { REASON: 'work' })).result.status).toBe('Success');
      expect((await w.checkout(alice, aid)).result.status).toBe('Success');
      const [request] = await s.dataSource.query(`SELECT id FROM password_requests WHERE account_id = $1 AND status = 'checked_out'`, [aid]);
      const from = await maxAudit();
      expect((await w.checkin(alice, aid, alice.id)).result.status).toBe('Success');
      const rows = await auditSince(from);
      const used = rows.filter((r: { operation: string }) => r.operation === 'Password Used');
      expect(used).toEqual([
        {
          operation: 'Password Used',
          outcome: 'Success',
          actor_id: null,
          actor_name: 'System',
          account_name: admin,
          description: `SSH login to change the password of ${name}; started by reset after check-in of request ${request.id} by ${alice.name}; to 127.0.0.1:${sshd.port} (Linux)`,
        },
      ]);
      // Decided and audited before the change it made.
      expect(rows.findIndex((r: { operation: string }) => r.operation === 'Password Used')).toBeLessThan(
        rows.findIndex((r: { operation: string }) => r.operation === 'Password Changed'),
      );
      expect((await sshd.clientLogin(name, { password: OLD_PASSWORD })).ok).toBe(false);
    });
  });
});
