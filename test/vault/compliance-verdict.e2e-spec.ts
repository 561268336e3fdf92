import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { controlledResource, eventually, share, TestUser, user, workflow } from './workflow-helpers';
import { vaultClient, VaultClient } from './vault-client';

/**
 * Account details shows the compliance verdict made when the password was set; a policy
 * switch has it made again only on the gate's decision that the switcher may learn it
 * (audited, grant or refusal), and accounts from before verdicts were kept get theirs at the
 * next start, as the server's own audited use.
 */
describe('compliance without opening passwords', () => {
  let s: TestServices;
  let admin: VaultClient;
  let bob: TestUser;

  beforeAll(async () => {
    s = await startTestServices();
    admin = vaultClient(s, s.adminToken);
    bob = await user(s, 'Password User', 'bob');
    for (const [name, min] of [['Len30', 30], ['Len10', 10]] as const) {
      const made = await admin.post('/passwordpolicies', { NAME: name, MINLENGTH: String(min), MAXLENGTH: '64' });
      expect(made.body.operation.result.status).toBe('Success');
    }
  });
  afterAll(() => s.close());

  const details = async (client: VaultClient, rid: number, aid: number) => {
    const op = (await client.get(`/resources/${rid}/accounts/${aid}`)).body.operation;
    expect(op.result).toEqual({ status: 'Success', message: 'Account details fetched successfully' });
    return { status: op.Details['COMPLIANT STATUS'], reason: op.Details['COMPLIANT REASON'] };
  };
  const switchPolicy = async (client: VaultClient, rid: number, aid: number, policy: string) => {
    const op = (await client.put(`/resources/${rid}/accounts/${aid}`, { ACCOUNTPASSWORDPOLICY: policy })).body.operation;
    expect(op.result.status).toBe('Success');
  };
  const auditOf = (accountId: number, operation: string) =>
    s.dataSource.query('SELECT actor_id, outcome, description FROM audit WHERE account_id = $1 AND operation = $2 ORDER BY id', [accountId, operation]);
  const auditCount = async (accountId: number) => (await s.dataSource.query('SELECT count(*)::int AS n FROM audit WHERE account_id = $1', [accountId]))[0].n;

  it('answers details from the stored verdict: no password opened, nothing audited', async () => {
    const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'short' });
    expect(await details(admin, r.resourceId, r.accountId)).toEqual({ status: 'Non-Compliant', reason: expect.stringMatching(/^Minimum length must be 8/) });
    // A sealed value nothing can open: details still answers, so it never opens it.
    await s.dataSource.query(`UPDATE accounts SET password = '\\x00'::bytea WHERE id = $1`, [r.accountId]);
    const before = await auditCount(r.accountId);
    expect(await details(admin, r.resourceId, r.accountId)).toEqual({ status: 'Non-Compliant', reason: expect.stringMatching(/^Minimum length must be 8/) });
    expect(await auditCount(r.accountId)).toBe(before);
  });

  it('keeps the verdict unknown when the gate does not let the switcher learn it, and audits the refusal', async () => {
    const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Exactly-20-chars-P1!' });
    // Under access control, a modify holder reads the password only while holding a check-out.
    const ac = await admin.put(`/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, {});
    expect(ac.body.operation.result.status).toBe('Success');
    await share(s, r.resourceId, bob.id, 'modify');
    const asBob = vaultClient(s, bob.token);
    expect(await details(asBob, r.resourceId, r.accountId)).toEqual({ status: 'Compliant', reason: '-' });

    for (const policy of ['Len30', 'Len10', 'Len30']) {
      await switchPolicy(asBob, r.resourceId, r.accountId, policy);
      expect(await details(asBob, r.resourceId, r.accountId)).toEqual({
        status: 'Unknown',
        reason: `Not checked against the ${policy} policy yet: checked when the password next changes`,
      });
    }
    const refusals = await auditOf(r.accountId, 'Password Compliance Check Denied');
    expect(refusals).toHaveLength(3);
    expect(refusals[0]).toMatchObject({ actor_id: bob.id, outcome: 'Failed', description: expect.stringMatching(/^refused: /) });
    expect(await auditOf(r.accountId, 'Password Compliance Checked')).toEqual([]);

    // Back to the policy the verdict was made against: that verdict again, nothing new learnt.
    await switchPolicy(asBob, r.resourceId, r.accountId, 'Strong');
    expect(await details(asBob, r.resourceId, r.accountId)).toEqual({ status: 'Compliant', reason: '-' });
  });

  it('assesses the new policy when the gate grants it, audited, and a password change makes a fresh verdict', async () => {
    const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Exactly-20-chars-P1!' });
    await switchPolicy(admin, r.resourceId, r.accountId, 'Len30');
    expect(await details(admin, r.resourceId, r.accountId)).toEqual({ status: 'Non-Compliant', reason: 'Minimum length must be 30' });
    const checked = await auditOf(r.accountId, 'Password Compliance Checked');
    expect(checked).toEqual([{ actor_id: expect.any(Number), outcome: 'Success', description: 'after a password policy change' }]);

    // A change under a custom policy (the locked way) and under a built-in one (one statement).
    const url = `/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    expect((await admin.put(url, { NEWPASSWORD: 'A-much-longer-password-of-32-ch!', RESETTYPE: 'LOCAL' })).body.operation.result.status).toBe('Success');
    expect(await details(admin, r.resourceId, r.accountId)).toEqual({ status: 'Compliant', reason: '-' });
    await switchPolicy(admin, r.resourceId, r.accountId, 'Strong');
    await s.dataSource.query('UPDATE accounts SET compliance_policy = NULL, compliance_problems = NULL WHERE id = $1', [r.accountId]);
    expect((await details(admin, r.resourceId, r.accountId)).status).toBe('Unknown');
    expect((await admin.put(url, { NEWPASSWORD: 'Another-Strong-Pass-99!', RESETTYPE: 'LOCAL' })).body.operation.result.status).toBe('Success');
    expect(await s.dataSource.query('SELECT compliance_policy, compliance_problems FROM accounts WHERE id = $1', [r.accountId])).toEqual([
      { compliance_policy: 'Strong', compliance_problems: '' },
    ]);
  });

  it('stores the verdict of a password the server sets itself (the reset after check-in)', async () => {
    const owner = await user(s, 'Password Administrator', 'owner');
    const carol = await user(s, 'Password User', 'carol');
    const r = await controlledResource(s, owner, { RESET_AFTER_CHECKIN: 'true' });
    await share(s, r.resourceId, carol.id);
    const w = workflow(s.vaultUrl);
    await w.request(carol, r.accountId);
    await w.approve(owner, r.accountId, carol.id);
    expect((await w.checkout(carol, r.accountId)).result.status).toBe('Success');
    await s.dataSource.query('UPDATE accounts SET compliance_policy = NULL, compliance_problems = NULL WHERE id = $1', [r.accountId]);
    expect((await w.checkin(carol, r.accountId, carol.id)).result.status).toBe('Success');
    expect(await s.dataSource.query('SELECT compliance_policy, compliance_problems FROM accounts WHERE id = $1', [r.accountId])).toEqual([
      { compliance_policy: 'Strong', compliance_problems: '' },
    ]);
    expect(await auditOf(r.accountId, 'Password Compliance Checked')).toEqual([]);
  });

  it('gives accounts from before verdicts were kept theirs at the next start, as the server, one audit row each', async () => {
    const weak = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'short' });
    const good = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Exactly-20-chars-P1!' });
    // As the migration leaves them.
    await s.dataSource.query('UPDATE accounts SET compliance_policy = NULL, compliance_problems = NULL WHERE id IN ($1, $2)', [weak.accountId, good.accountId]);
    expect(await details(admin, weak.resourceId, weak.accountId)).toEqual({
      status: 'Unknown',
      reason: "Not checked against the Strong policy yet: checked at the server's next start",
    });

    const restarted = await startTestServices({ DATA_DIR: s.config.dataDir }, s.databaseUrl);
    try {
      await eventually(async () => {
        const rows = await s.dataSource.query('SELECT id FROM accounts WHERE id IN ($1, $2) AND compliance_policy IS NOT NULL', [weak.accountId, good.accountId]);
        return rows.length === 2;
      });
      expect(await details(admin, weak.resourceId, weak.accountId)).toEqual({ status: 'Non-Compliant', reason: expect.stringMatching(/^Minimum length must be 8/) });
      expect(await details(admin, good.resourceId, good.accountId)).toEqual({ status: 'Compliant', reason: '-' });
      for (const accountId of [weak.accountId, good.accountId]) {
        expect(await auditOf(accountId, 'Password Compliance Checked')).toEqual([
          { actor_id: null, outcome: 'Success', description: 'by the server at start: a password stored before compliance verdicts were kept' },
        ]);
      }
    } finally {
      await restarted.close();
    }
  });
});
