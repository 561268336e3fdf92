import { Client } from 'pg';
import request from 'supertest';
import { Keyring } from '@app/crypto';
import { PASSWORD_CONTEXT } from '@app/gate';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { newStaticGroupWith, putUnderAccessControl, shareToUser } from '../support/sharing';
import { auditRows } from './vault-client';

/**
 * The usual password change is one statement without a lock taken before it
 * (AccountSecretGate.changeAtOnce + STORE_AT_ONCE): quick decision, policy, reuse by
 * fingerprint, change and audit row. Everything it does not write goes the locked way. These
 * tests hold the one-statement change to the locked one: the same answers, the same rows,
 * no lost history under concurrent changes, and reuse found whatever the fingerprints hold.
 */
describe('password change in one statement', () => {
  let s: TestServices;
  let keyring: Keyring;
  beforeAll(async () => {
    s = await startTestServices();
    keyring = s.vault.get(Keyring);
  });
  afterAll(() => s.close());

  const change = (token: string, r: { resourceId: number; accountId: number }, password: string) =>
    request(s.vaultUrl)
      .put(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`)
      .set('AUTHTOKEN', token)
      .type('form')
      .send({ INPUT_DATA: inputData({ NEWPASSWORD: password, REASON: 'test' }) });
  const result = async (res: Promise<request.Response>) => (await res).body.operation.result;
  const fingerprints = async (accountId: number) => {
    const [account] = await s.dataSource.query('SELECT password_fingerprint AS fp FROM accounts WHERE id = $1', [accountId]);
    const history = await s.dataSource.query('SELECT fingerprint AS fp FROM password_history WHERE account_id = $1 ORDER BY id', [accountId]);
    return { current: account.fp as Buffer | null, history: history.map((h: { fp: Buffer | null }) => h.fp) };
  };
  const fp = (password: string, accountId: number) => keyring.fingerprint(password, PASSWORD_CONTEXT, accountId);
  /** Whether `answer` settles before a backend of this test's database waits on a lock. */
  const settledOrBlocked = async (answer: Promise<unknown>): Promise<'answered' | 'blocked'> => {
    let settled = false;
    void answer.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < 1000 && !settled; i++) {
      const [{ n }] = await s.dataSource.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
      if (n > 0) return 'blocked';
      await new Promise((done) => setTimeout(done, 10));
    }
    await answer;
    return 'answered';
  };

  it('changes without waiting for a lock once the fingerprints are kept, bound to the account', async () => {
    const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'First-Pass-123!' });
    // A new account has none (its id is in the MAC): the first change goes the locked way and keeps them.
    expect(await fingerprints(r.accountId)).toEqual({ current: null, history: [] });
    expect(await result(change(s.adminToken, r, 'Second-Pass-123!'))).toMatchObject({ status: 'Success' });
    const id = r.accountId;
    expect(await fingerprints(id)).toEqual({ current: fp('Second-Pass-123!', id), history: [fp('First-Pass-123!', id)] });
    // The same password on another account has another fingerprint.
    const twin = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Twin-Pass-123!' });
    expect(await result(change(s.adminToken, twin, 'Second-Pass-123!'))).toMatchObject({ status: 'Success' });
    expect((await fingerprints(twin.accountId)).current).toEqual(fp('Second-Pass-123!', twin.accountId));
    expect((await fingerprints(twin.accountId)).current).not.toEqual((await fingerprints(id)).current);
    // A key-share lock lets an UPDATE of the row through but not the locked way's FOR UPDATE.
    const holder = new Client({ connectionString: s.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM accounts WHERE id = $1 FOR KEY SHARE', [r.accountId]);
      const answer = result(change(s.adminToken, r, 'Third-Pass-123!'));
      expect(await settledOrBlocked(answer)).toBe('answered');
      expect(await answer).toEqual({ status: 'Success', message: 'Password changed successfully' });
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect(await fingerprints(id)).toEqual({ current: fp('Third-Pass-123!', id), history: [fp('First-Pass-123!', id), fp('Second-Pass-123!', id)] });
    const rows = await auditRows(s, `operation = 'Password Changed' AND account_id = $1`, [id]);
    expect(rows.map((a) => [a.outcome, a.actor_name, a.reason])).toEqual([
      ['Success', 'admin', 'test'],
      ['Success', 'admin', 'test'],
    ]);
  });

  it('refuses the last 4 passwords and allows the fifth, alike with and without comparable fingerprints', async () => {
    // 'none': fingerprints cleared; 'other': made under another key version. Both must go the locked way.
    for (const fingerprintsOf of ['kept', 'none', 'other'] as const) {
      const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: `P0-${fingerprintsOf}-Pass-1!` });
      const passwords = [0, 1, 2, 3, 4].map((i) => `P${i}-${fingerprintsOf}-Pass-1!`);
      for (const next of passwords.slice(1)) expect(await result(change(s.adminToken, r, next))).toMatchObject({ status: 'Success' });
      if (fingerprintsOf === 'none') {
        await s.dataSource.query('UPDATE accounts SET password_fingerprint = NULL WHERE id = $1', [r.accountId]);
        await s.dataSource.query('UPDATE password_history SET fingerprint = NULL WHERE account_id = $1', [r.accountId]);
      }
      if (fingerprintsOf === 'other') {
        const other = "'\\x000003e7'::bytea || substring(%s FROM 5)";
        await s.dataSource.query(`UPDATE accounts SET password_fingerprint = ${other.replace('%s', 'password_fingerprint')} WHERE id = $1`, [r.accountId]);
        await s.dataSource.query(`UPDATE password_history SET fingerprint = ${other.replace('%s', 'fingerprint')} WHERE account_id = $1`, [r.accountId]);
      }
      // Current P4, then P3, P2, P1 in history: all four refused; P0 is the fifth back.
      for (const reused of passwords.slice(1).reverse()) {
        expect({ fingerprintsOf, reused, result: await result(change(s.adminToken, r, reused)) }).toEqual({
          fingerprintsOf,
          reused,
          result: { status: 'Failed', message: 'Must not be one of the last 4 password(s)' },
        });
      }
      expect(await result(change(s.adminToken, r, passwords[0]))).toMatchObject({ status: 'Success' });
      const [{ n }] = await s.dataSource.query('SELECT count(*)::int AS n FROM password_history WHERE account_id = $1', [r.accountId]);
      expect({ fingerprintsOf, n }).toEqual({ fingerprintsOf, n: 5 });
      // The last 4 (current and 3 in history) carry this key's fingerprints again, whichever way the change went.
      const { current, history } = await fingerprints(r.accountId);
      expect({ fingerprintsOf, recent: [current, ...history.slice(-3).reverse()] }).toEqual({
        fingerprintsOf,
        recent: [passwords[0], passwords[4], passwords[3], passwords[2]].map((p) => fp(p, r.accountId)),
      });
    }
  });

  it('loses no replaced password when changes of one account overlap', async () => {
    const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Start-Race-Pass-1!' });
    expect(await result(change(s.adminToken, r, 'Warm-Race-Pass-1!'))).toMatchObject({ status: 'Success' });
    const news = Array.from({ length: 8 }, (_, i) => `Race-${i}-Pass-1!x`);
    const answers = await Promise.all(news.map((p) => result(change(s.adminToken, r, p))));
    expect(answers.map((a) => a.status)).toEqual(news.map(() => 'Success'));
    // Every password held once: each history entry is the password the next change replaced.
    const { current, history } = await fingerprints(r.accountId);
    const hex = (p: string) => fp(p, r.accountId).toString('hex');
    const held = [...history, current].map((b) => (b as Buffer).toString('hex'));
    expect(held).toHaveLength(10);
    expect(new Set(held)).toEqual(new Set(['Start-Race-Pass-1!', 'Warm-Race-Pass-1!', ...news].map(hex)));
    expect(held.slice(0, 2)).toEqual(['Start-Race-Pass-1!', 'Warm-Race-Pass-1!'].map(hex));
    const opened = await s.dataSource.query('SELECT password FROM password_history WHERE account_id = $1 ORDER BY id', [r.accountId]);
    const texts = await Promise.all(opened.map(async (h: { password: Buffer }) => (await keyring.open(h.password, PASSWORD_CONTEXT)).toString()));
    expect(texts.map(hex)).toEqual(held.slice(0, 9));
    expect(await auditRows(s, `operation = 'Password Changed' AND account_id = $1`, [r.accountId])).toHaveLength(9);
  });

  it('leaves refusals, resource-group shares and access control to the full decision, audited once', async () => {
    const viewer = await createUserWithToken(s, 'at-once-viewer', 'Password Administrator');
    const grouped = await createUserWithToken(s, 'at-once-grouped', 'Password Administrator');
    const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Shared-Pass-123!' });
    await shareToUser(s.dataSource, r.resourceId, viewer.id, 'view');
    const [{ org_id: orgId }] = await s.dataSource.query('SELECT org_id FROM resources WHERE id = $1', [r.resourceId]);
    await newStaticGroupWith(s.dataSource, orgId, 'at-once-group', r.resourceId, { shareTo: { userId: grouped.id, level: 'modify' } });

    expect(await result(change(viewer.token, r, 'Viewer-Pass-123!'))).toMatchObject({ status: 'Failed' });
    const denied = await auditRows(s, `operation = 'Password Change Denied' AND account_id = $1`, [r.accountId]);
    expect(denied.map((a) => [a.actor_name, a.description])).toEqual([['at-once-viewer', 'refused: LEVEL']]);

    expect(await result(change(grouped.token, r, 'Grouped-Pass-123!'))).toEqual({ status: 'Success', message: 'Password changed successfully' });
    await putUnderAccessControl(s.dataSource, r.resourceId, r.accountId);
    expect(await result(change(s.adminToken, r, 'Controlled-Pass-123!'))).toMatchObject({ status: 'Failed' });
    expect(await fingerprints(r.accountId)).toEqual({ current: fp('Grouped-Pass-123!', r.accountId), history: [fp('Shared-Pass-123!', r.accountId)] });
    const changed = await auditRows(s, `operation IN ('Password Changed', 'Password Change Denied') AND account_id = $1`, [r.accountId]);
    expect(changed.map((a) => [a.operation, a.actor_name, a.description])).toEqual([
      ['Password Change Denied', 'at-once-viewer', 'refused: LEVEL'],
      ['Password Changed', 'at-once-grouped', ''],
      ['Password Change Denied', 'admin', 'refused: CHECKOUT'],
    ]);
  });

  it('checks reuse against the password another change set meanwhile, not the one its statement started with', async () => {
    // The other change holds the row; ours, to the very password the other one sets, passes
    // the check on its snapshot, waits inside its statement, then finds a newer row version
    // and goes the locked way, which sees that password as the current one.
    const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Old-Race-Pass-1!' });
    expect(await result(change(s.adminToken, r, 'Warm-Race-Pass-1!'))).toMatchObject({ status: 'Success' });
    const other = new Client({ connectionString: s.databaseUrl });
    await other.connect();
    try {
      await other.query('BEGIN');
      const sealed = keyring.seal('Mid-Race-Pass-1!', PASSWORD_CONTEXT);
      await other.query(
        `WITH kept AS (INSERT INTO password_history (account_id, password, fingerprint) SELECT id, password, password_fingerprint FROM accounts WHERE id = $1)
         UPDATE accounts SET password = $2, password_fingerprint = $3 WHERE id = $1`,
        [r.accountId, sealed, fp('Mid-Race-Pass-1!', r.accountId)],
      );
      const ours = result(change(s.adminToken, r, 'Mid-Race-Pass-1!'));
      expect(await settledOrBlocked(ours)).toBe('blocked');
      await other.query('COMMIT');
      expect(await ours).toEqual({ status: 'Failed', message: 'Must not be one of the last 4 password(s)' });
    } finally {
      await other.end();
    }
    const hex = (p: string) => fp(p, r.accountId);
    expect(await fingerprints(r.accountId)).toEqual({ current: hex('Mid-Race-Pass-1!'), history: [hex('Old-Race-Pass-1!'), hex('Warm-Race-Pass-1!')] });
  });
});
