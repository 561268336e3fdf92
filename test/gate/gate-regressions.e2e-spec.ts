import { startTestServices, TestServices } from '../support/app';
import { ConnectionSink, startConnectionSink } from '../support/connection-sink';
import { createResource } from '../support/factories';
import { call, controlledResource, requestStatus, share, TestUser, user, workflow } from '../vault/workflow-helpers';

// The cases issue 11 found, one test each (the table of every secret path is secret-paths).
// The sweeper is slowed to an hour, so "lapsed" below is never the sweeper's doing.
const V = '/restapi/json/v1';

describe('gate regressions', () => {
  let s: TestServices;
  let w: ReturnType<typeof workflow>;
  let owner: TestUser;
  let sink: ConnectionSink;

  beforeAll(async () => {
    s = await startTestServices({ SWEEP_INTERVAL_MS: '3600000' });
    w = workflow(s.vaultUrl);
    owner = await user(s, 'Password Administrator', 'reg-owner');
    sink = await startConnectionSink();
  });
  afterAll(async () => {
    await sink.close();
    await s.close();
  });

  const auditOf = (userId: number, operation: string) =>
    s.dataSource.query('SELECT outcome, description FROM audit WHERE actor_id = $1 AND operation = $2 ORDER BY id', [userId, operation]);

  it('1. a modify share cannot point the stored admin credentials at another host: refused, audited, never connected', async () => {
    const r = await createResource(s.vaultUrl, owner.token, { DNSNAME: 'db.internal' });
    const mallory = await user(s, 'Password Administrator', 'mallory');
    await share(s, r.resourceId, mallory.id, 'modify');
    const op = await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/remotepasswordreset`, mallory.token, {
      ACCOUNTNAME: r.accountName,
      DNSNAME: '127.0.0.1',
      PORT: sink.port,
    });
    expect(op.result).toEqual({ status: 'Failed', message: `You need full access to resource ${r.name} to point its stored credentials at another host` });
    expect(sink.connections()).toBe(0);
    expect(await auditOf(mallory.id, 'Password Use Denied')).toEqual([{ outcome: 'Failed', description: 'refused: LEVEL' }]);
    const [resource] = await s.dataSource.query('SELECT dns_name, remote_account_id FROM resources WHERE id = $1', [r.resourceId]);
    expect(resource).toEqual({ dns_name: 'db.internal', remote_account_id: null });
  });

  it('4. under access control only the holder of a running check-out changes the password', async () => {
    const r = await controlledResource(s, owner, { APPROVAL_REQUIRED: 'false', EXCLUSIVE: 'true', CHECKOUT_MINUTES: '30' });
    const alice = await user(s, 'Password User', 'alice');
    const bob = await user(s, 'Password User', 'bob');
    await share(s, r.resourceId, alice.id, 'modify');
    await share(s, r.resourceId, bob.id, 'modify');
    const change = (u: TestUser, pw: string) => call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/password`, u.token, { NEWPASSWORD: pw });
    expect((await change(alice, 'Alice-Chosen-Pw-1')).result.message).toMatch(/request it and check it out first/);
    await w.request(alice, r.accountId);
    expect((await w.checkout(alice, r.accountId)).result.status).toBe('Success');
    expect((await change(bob, 'Bob-Overwrites-Pw-1')).result.message).toMatch(/another user has checked it out/);
    expect((await change(alice, 'Alice-Chosen-Pw-1')).result.status).toBe('Success');
    expect((await w.password(alice, r.resourceId, r.accountId)).Details.PASSWORD).toBe('Alice-Chosen-Pw-1');
    expect(await auditOf(bob.id, 'Password Change Denied')).toEqual([{ outcome: 'Failed', description: 'refused: IN_USE' }]);
  });

  it('5. adding a resource to a static group needs full access to it', async () => {
    const r = await createResource(s.vaultUrl, owner.token);
    const creator = await user(s, 'Password Administrator', 'grouper');
    await share(s, r.resourceId, creator.id, 'view');
    const group = await call(s.vaultUrl, 'post', `${V}/resourcegroup`, creator.token, { critgroup: `mine-${r.resourceId}`, GROUPTYPE: 'static' });
    const groupId = group.Details.RESOURCEGROUPID;
    const add = () => call(s.vaultUrl, 'put', `${V}/resourcegroup/${groupId}/resources`, creator.token, { RESOURCEIDS: String(r.resourceId) });
    expect((await add()).result).toEqual({ status: 'Failed', message: `You need full access to resource ${r.name} to add it to a resource group` });
    expect(await s.dataSource.query('SELECT 1 FROM resource_group_members WHERE resource_id = $1', [r.resourceId])).toEqual([]);
    await s.dataSource.query(`UPDATE shares SET access_type = 'fullaccess' WHERE resource_id = $1 AND user_id = $2`, [r.resourceId, creator.id]);
    expect((await add()).result.status).toBe('Success');
  });

  it('7. a lapsed check-out is over everywhere at once, before any sweep', async () => {
    const r = await controlledResource(s, owner, { APPROVAL_REQUIRED: 'false', EXCLUSIVE: 'true', CHECKOUT_MINUTES: '0.01' });
    const alice = await user(s, 'Password User', 'alice');
    const bob = await user(s, 'Password User', 'bob');
    await share(s, r.resourceId, alice.id);
    await share(s, r.resourceId, bob.id);
    await w.request(alice, r.accountId);
    expect((await w.checkout(alice, r.accountId)).result.status).toBe('Success');
    const status = async (u: TestUser) => {
      const list = await call(s.vaultUrl, 'get', `${V}/resources/${r.resourceId}/accounts`, u.token);
      return list.Details['ACCOUNT LIST'][0]['PASSWORD STATUS'];
    };
    // While it runs: in use for bob, not for alice herself.
    expect(await status(bob)).toBe('[ In use ]');
    expect(await status(alice)).toBe('****');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await requestStatus(s, r.accountId, alice.id)).toBe('checked_out'); // the sweeper has not run
    expect(await status(bob)).toBe('****');
    expect((await w.password(alice, r.resourceId, r.accountId)).result.message).toMatch(/request it and check it out first/);
    expect((await w.password(bob, r.resourceId, r.accountId)).result.message).toMatch(/request it and check it out first/);
    // And bob can check it out at once: the lapsed check-out is checked in on the way.
    await w.request(bob, r.accountId);
    expect((await w.checkout(bob, r.accountId)).result.status).toBe('Success');
    expect(await requestStatus(s, r.accountId, alice.id)).toBe('checked_in');
    expect((await w.password(bob, r.resourceId, r.accountId)).result.status).toBe('Success');
  });
});
