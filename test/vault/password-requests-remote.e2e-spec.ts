import { RotationEvents } from '../../apps/vault/src/rotation/rotation-events';
import { AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { CHECKIN_COLUMNS, CHECKIN_FROM, CheckinFinisher } from '../../apps/vault/src/password-requests/checkin-finisher';
import { PENDING_PASSWORD_CONTEXT, RemotePasswordResetter } from '../../apps/vault/src/password-requests/remote-reset';
import { PasswordChanger } from '../../apps/vault/src/passwords/password-changer';
import { PoliciesService } from '../../apps/vault/src/policies/policies.service';
import { AccountSecretGate, PASSWORD_CONTEXT } from '@app/gate';
import { startTestServices, TestServices } from '../support/app';
import { controlledResource, requestStatus, share, TestUser, user, workflow } from './workflow-helpers';
import { bindAsDecided } from '../support/destination';

describe('vault password workflow: remote reset after check-in (host simulated), crash recovery', () => {
  // The services' own sweeper stays idle here (long interval): the tests drive recovery.
  let s: TestServices;
  let w: ReturnType<typeof workflow>;
  let owner: TestUser;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    s = await startTestServices({ SWEEP_INTERVAL_MS: '3600000' });
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

  const passwordBlob = async (accountId: number): Promise<Buffer> =>
    (await s.dataSource.query('SELECT password FROM accounts WHERE id = $1', [accountId]))[0].password;

  class FakeHost implements RemotePasswordResetter {
    reachable = true;
    constructor(public password: string) {}
    async change(_: unknown, password: string) {
      if (!this.reachable) throw new Error('host unreachable');
      this.password = password;
    }
    async verify(_: unknown, password: string) {
      if (!this.reachable) throw new Error('host unreachable');
      return password === this.password;
    }
  }

  let keyring: Keyring;
  const finisherFor = (host: FakeHost) =>
    new CheckinFinisher(
      s.dataSource,
      keyring,
      s.vault.get(AuditWriter, { strict: false }),
      s.vault.get(PasswordChanger, { strict: false }),
      s.vault.get(AccountSecretGate, { strict: false }),
      s.vault.get(PoliciesService, { strict: false }),
      s.vault.get(RotationEvents, { strict: false }),
      host,
    );

  beforeAll(() => {
    keyring = s.vault.get(Keyring, { strict: false });
  });

  /** Step 1 committed (request 'resetting', new password sealed), then the process "dies". */
  async function startedReset(host: FakeHost) {
    const r = await setup({ RESET_AFTER_CHECKIN: 'true' });
    await s.dataSource.query('UPDATE resources SET remote_account_id = $1 WHERE id = $2', [r.accountId, r.resourceId]);
    await bindAsDecided(s.dataSource, r.resourceId);
    await w.request(alice, r.accountId);
    await w.checkout(alice, r.accountId);
    const finisher = finisherFor(host);
    const remote = await s.dataSource.transaction(async (m) => {
      const [row] = await m.query(`SELECT ${CHECKIN_COLUMNS} FROM ${CHECKIN_FROM} WHERE pr.account_id = $1 AND pr.status = 'checked_out' FOR UPDATE OF pr`, [
        r.accountId,
      ]);
      return finisher.finish(m, row, null);
    });
    expect(remote).toBe(true);
    const [pending] = await s.dataSource.query(`SELECT id, pending_password FROM password_requests WHERE account_id = $1 AND status = 'resetting'`, [
      r.accountId,
    ]);
    const fresh = await keyring.openText(pending.pending_password, PENDING_PASSWORD_CONTEXT);
    return { r, finisher, fresh };
  }

  /** Recovery waits a grace period before it touches a reset; the test skips it. */
  const overdue = (accountId: number) =>
    s.dataSource.query(`UPDATE password_requests SET reset_started_at = now() - interval '2 minutes' WHERE account_id = $1 AND status = 'resetting'`, [
      accountId,
    ]);
  const stored = async (accountId: number) => keyring.openText(await passwordBlob(accountId), PASSWORD_CONTEXT);

  it('keeps the account in use while the reset is pending', async () => {
    const host = new FakeHost('');
    const { r } = await startedReset(host);
    expect((await w.password(bob, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: '[ In use ]' });
    expect((await w.password(alice, r.resourceId, r.accountId)).Details).toEqual({ PASSWORD: '[ In use ]' });
  });

  it('finalises when the host already took the new password', async () => {
    const host = new FakeHost('');
    const { r, finisher, fresh } = await startedReset(host);
    host.password = fresh; // the remote change happened, the commit did not
    await overdue(r.accountId);
    expect(await finisher.recoverOne()).toBe(true);
    expect(await stored(r.accountId)).toBe(fresh);
    const [history] = await s.dataSource.query('SELECT password FROM password_history WHERE account_id = $1', [r.accountId]);
    expect(await keyring.openText(history.password, PASSWORD_CONTEXT)).toBe(r.password);
    expect(await requestStatus(s, r.accountId, alice.id)).toBe('checked_in');
  });

  it('rolls back when the host still has the old password', async () => {
    const host = new FakeHost('');
    const { r, finisher } = await startedReset(host);
    host.password = r.password;
    await overdue(r.accountId);
    expect(await finisher.recoverOne()).toBe(true);
    expect(await stored(r.accountId)).toBe(r.password);
    expect(await requestStatus(s, r.accountId, alice.id)).toBe('checked_in');
    const [audit] = await s.dataSource.query(`SELECT outcome FROM audit WHERE operation = 'Password Change Failed' AND account_id = $1`, [r.accountId]);
    expect(audit.outcome).toBe('Failed');
  });

  it('keeps both passwords while the host cannot be reached, then settles', async () => {
    const host = new FakeHost('');
    const { r, finisher, fresh } = await startedReset(host);
    host.reachable = false;
    expect(await finisher.recoverOne()).toBe(false);
    await overdue(r.accountId);
    await finisher.recoverOne();
    expect(await requestStatus(s, r.accountId, alice.id)).toBe('resetting');
    expect(await stored(r.accountId)).toBe(r.password);
    const [pending] = await s.dataSource.query(`SELECT pending_password FROM password_requests WHERE account_id = $1 AND status = 'resetting'`, [
      r.accountId,
    ]);
    expect(await keyring.openText(pending.pending_password, PENDING_PASSWORD_CONTEXT)).toBe(fresh);
    host.reachable = true;
    host.password = fresh;
    await overdue(r.accountId);
    expect(await finisher.recoverOne()).toBe(true);
    expect(await stored(r.accountId)).toBe(fresh);
  });

  it('completes a remote reset in the normal order', async () => {
    const r = await setup({ RESET_AFTER_CHECKIN: 'true' });
    await s.dataSource.query('UPDATE resources SET remote_account_id = $1 WHERE id = $2', [r.accountId, r.resourceId]);
    await bindAsDecided(s.dataSource, r.resourceId);
    const host = new FakeHost(r.password);
    const finisher = finisherFor(host);
    await w.request(alice, r.accountId);
    await w.checkout(alice, r.accountId);
    const id = await s.dataSource.transaction(async (m) => {
      const [row] = await m.query(`SELECT ${CHECKIN_COLUMNS} FROM ${CHECKIN_FROM} WHERE pr.account_id = $1 AND pr.status = 'checked_out' FOR UPDATE OF pr`, [
        r.accountId,
      ]);
      await finisher.finish(m, row, null);
      return row.id;
    });
    await finisher.completeRemote(id, null);
    expect(host.password).not.toBe(r.password);
    expect(await stored(r.accountId)).toBe(host.password);
    expect(await requestStatus(s, r.accountId, alice.id)).toBe('checked_in');
  });
});
