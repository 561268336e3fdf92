import request from 'supertest';
import { ConnectorKind } from '@app/connectors';
import { startTestServices, TestServices } from '../support/app';
import { ConnectorPeer, PEER_KINDS, startPeer } from '../support/connector-peers';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { bindAsDecided } from '../support/destination';

const V1 = '/restapi/json/v1';
const P1 = 'First-Pass-word-1';
const P2 = 'Second-Pass-word-2';
const BEHIND = 'Behind-Back-Pass-3';

/**
 * Remote password reset, verification and reconcile for each connector kind, over HTTP
 * against the kind's real peer: configure (wrong administrator password, unreachable host,
 * untrusted certificate refused and nothing saved), remote change, verify in sync, a change
 * behind the vault's back found out of sync, reconcile, hostile account names.
 */
describe.each(PEER_KINDS)('remote password reset: %s', (kind: ConnectorKind) => {
  let s: TestServices;
  let peer: ConnectorPeer;
  let resourceId: number;
  let adminId: number;
  let accountId: number;
  let accountName: string;

  const call = async (method: 'put' | 'post' | 'get', path: string, details?: Record<string, unknown>) => {
    let r = request(s.vaultUrl)[method](`${V1}${path}`).set('AUTHTOKEN', s.adminToken);
    if (details) r = r.type('form').send({ INPUT_DATA: inputData(details) });
    return (await r).body.operation;
  };
  const addAccount = async (name: string, password: string) => {
    const added = await call('post', `/resources/${resourceId}/accounts`, { ACCOUNTLIST: [{ ACCOUNTNAME: name, PASSWORD: password }] });
    expect(added.result.status).toBe('Success');
    const [row] = await s.dataSource.query('SELECT id FROM accounts WHERE resource_id = $1 AND name = $2', [resourceId, name]);
    return row.id as number;
  };
  const stored = async (aid: number) => (await call('get', `/resources/${resourceId}/accounts/${aid}/password`)).Details.PASSWORD as string;
  const configure = (extra: Record<string, string> = {}) => call('put', `/resources/${resourceId}/remotepasswordreset`, { ACCOUNTNAME: peer.admin.username, ...peer.config, ...extra });
  const saved = async () => (await s.dataSource.query('SELECT remote_account_id, remote_tls FROM resources WHERE id = $1', [resourceId]))[0];

  beforeAll(async () => {
    [s, peer] = await Promise.all([startTestServices({ VERIFY_INTERVAL_MS: '0' }), startPeer(kind)]);
    const resource = await createResource(s.vaultUrl, s.adminToken, {
      RESOURCENAME: `${kind}-target`,
      RESOURCETYPE: peer.resourceType,
      DNSNAME: '127.0.0.1',
      ACCOUNTNAME: peer.admin.username,
      PASSWORD: 'Wrong-Admin-Pass-9',
    });
    resourceId = resource.resourceId;
    adminId = resource.accountId;
    accountName = await peer.createAccount(P1);
    accountId = await addAccount(accountName, P1);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await peer?.stop();
  }, 60_000);

  it('refuses a wrong administrator password, saving nothing and saying why', async () => {
    const res = await configure();
    expect(res.result.status).toBe('Failed');
    expect(res.result.message).toMatch(new RegExp(`^Remote password reset was not configured for ${kind}-target: .*(refused|Authentication failed|auth)`, 'i'));
    expect(await saved()).toEqual({ remote_account_id: null, remote_tls: null });
    const changed = await call('put', `/resources/${resourceId}/accounts/${adminId}/password`, { NEWPASSWORD: peer.admin.password, RESETTYPE: 'LOCAL' });
    expect(changed.result.status).toBe('Success');
  });

  it('refuses an unreachable host, saving nothing', async () => {
    const res = await configure({ PORT: '1' });
    expect(res.result).toEqual({ status: 'Failed', message: `Remote password reset was not configured for ${kind}-target: Cannot reach ${peer.target.host}:1: connection refused` });
    expect((await saved()).remote_account_id).toBeNull();
  });

  it('with TLS verify, refuses the peer\'s unknown certificate, saving nothing', async () => {
    if (!peer.untrusted) return;
    const res = await call('put', `/resources/${resourceId}/remotepasswordreset`, { ACCOUNTNAME: peer.admin.username, ...peer.untrusted.config });
    expect(res.result.status).toBe('Failed');
    expect(res.result.message).toMatch(new RegExp(`TLS with ${peer.target.host.replace(/\./g, '\\.')}:\\d+ failed: the certificate was refused`));
    expect((await saved()).remote_account_id).toBeNull();
  });

  it('refuses an administrator that may only read the accounts, saving nothing; one that may write them is accepted; no password changes', async () => {
    const { reader, writer } = peer.lesserAdmins;
    const readerId = await addAccount(reader.username, reader.password);
    await addAccount(writer.username, writer.password);
    const refused = await call('put', `/resources/${resourceId}/remotepasswordreset`, { ...peer.config, ACCOUNTNAME: reader.username });
    expect(refused.result.status).toBe('Failed');
    expect(refused.result.message).toContain(`Remote password reset was not configured for ${kind}-target: ${peer.refusalOf(reader.username)}`);
    expect(await saved()).toEqual({ remote_account_id: null, remote_tls: null });
    const [audit] = await s.dataSource.query(`SELECT outcome, account_id FROM audit WHERE operation = 'Remote Password Reset Configured' ORDER BY id DESC LIMIT 1`);
    expect(audit).toEqual({ outcome: 'Failed', account_id: readerId });
    const accepted = await call('put', `/resources/${resourceId}/remotepasswordreset`, { ...peer.config, ACCOUNTNAME: writer.username });
    expect(accepted.result.status).toBe('Success');
    expect(await peer.login(accountName, P1)).toBe(true);
    expect(await stored(accountId)).toBe(P1);
  });

  it('configures after logging in as the administrator; GET shows every field but secrets', async () => {
    const res = await configure();
    expect(res.result).toEqual({ status: 'Success', message: `Remote password reset configured for resource ${kind}-target` });
    const described = await call('get', `/resources/${resourceId}/remotepasswordreset`);
    expect(described.Details).toMatchObject({ CONFIGURED: 'true', ACCOUNTNAME: peer.admin.username, HOST: peer.target.host, PORT: peer.config.PORT, CONNECTOR: kind });
    if (peer.config.TLS) expect(described.Details.TLS).toBe(peer.config.TLS);
    if (kind === 'ldap') expect(described.Details.USERDN).toBe(peer.config.USERDN);
    expect(JSON.stringify(described)).not.toContain(peer.admin.password);
  });

  it('changes the password on the target, then in the vault; Password Used on the administrator before', async () => {
    const res = await call('put', `/resources/${resourceId}/accounts/${accountId}/password`, { NEWPASSWORD: P2, RESETTYPE: 'REMOTE' });
    expect(res.result).toEqual({ status: 'Success', message: 'Password changed successfully' });
    expect(await peer.login(accountName, P2)).toBe(true);
    expect(await peer.login(accountName, P1)).toBe(false);
    expect(await stored(accountId)).toBe(P2);
    const [row] = await s.dataSource.query('SELECT pending_password, password_status FROM accounts WHERE id = $1', [accountId]);
    expect(row).toEqual({ pending_password: null, password_status: 'IN SYNC' });
    const audit = await s.dataSource.query(`SELECT operation, account_id FROM audit WHERE operation IN ('Password Used', 'Password Changed') AND (account_id = $1 OR account_id = $2) ORDER BY id`, [accountId, adminId]);
    expect(audit.slice(-2)).toEqual([{ operation: 'Password Used', account_id: adminId }, { operation: 'Password Changed', account_id: accountId }]);
  });

  it('verifies IN SYNC, and account details shows it', async () => {
    const res = await call('post', `/resources/${resourceId}/accounts/${accountId}/verify`, {});
    expect(res.name).toBe('VERIFY PASSWORD');
    expect(res.Details).toMatchObject({ STATUS: 'IN SYNC', MESSAGE: expect.stringContaining('logs in') });
    const details = await call('get', `/resources/${resourceId}/accounts/${accountId}`);
    expect(details.Details['PASSWORD SYNC STATUS']).toBe('IN SYNC');
    expect(details.Details['LAST VERIFIED']).not.toBe('N/A');
    const [used] = await s.dataSource.query(`SELECT outcome FROM audit WHERE operation = 'Password Used' AND account_id = $1`, [accountId]);
    expect(used).toEqual({ outcome: 'Success' });
  });

  it('finds a change behind the vault\'s back OUT OF SYNC (audited), and reconcile repairs it', async () => {
    await peer.setPassword(accountName, BEHIND);
    const res = await call('post', `/resources/${resourceId}/accounts/${accountId}/verify`, {});
    expect(res.Details.STATUS).toBe('OUT OF SYNC');
    const [audited] = await s.dataSource.query(`SELECT outcome FROM audit WHERE operation = 'Password Out Of Sync' AND account_id = $1`, [accountId]);
    expect(audited).toEqual({ outcome: 'Failed' });
    const reconciled = await call('post', `/resources/${resourceId}/accounts/${accountId}/reconcile`, {});
    expect(reconciled).toMatchObject({ name: 'RECONCILE PASSWORD', result: { status: 'Success', message: 'Password reconciled successfully' } });
    const now = await stored(accountId);
    expect(now).not.toBe(P2);
    expect(await peer.login(accountName, now)).toBe(true);
    expect(await peer.login(accountName, BEHIND)).toBe(false);
    expect((await call('post', `/resources/${resourceId}/accounts/${accountId}/verify`, {})).Details.STATUS).toBe('IN SYNC');
  });

  it('answers UNREACHABLE when the target does not answer', async () => {
    const [{ remote_port: port }] = await s.dataSource.query('SELECT remote_port FROM resources WHERE id = $1', [resourceId]);
    await s.dataSource.query('UPDATE resources SET remote_port = 1 WHERE id = $1', [resourceId]);
    await bindAsDecided(s.dataSource, resourceId);
    try {
      const res = await call('post', `/resources/${resourceId}/accounts/${accountId}/verify`, {});
      expect(res.Details).toEqual(expect.objectContaining({ STATUS: 'UNREACHABLE', MESSAGE: `Cannot reach ${peer.target.host}:1: connection refused` }));
      const failed = await call('put', `/resources/${resourceId}/accounts/${accountId}/password`, { NEWPASSWORD: 'Third-Pass-word-3', RESETTYPE: 'REMOTE' });
      expect(failed.result.message).toBe(`The password of ${accountName} was not changed (the host refused; nothing was changed in the vault): Cannot reach ${peer.target.host}:1: connection refused`);
      const [row] = await s.dataSource.query('SELECT pending_password FROM accounts WHERE id = $1', [accountId]);
      expect(row.pending_password).toBeNull();
    } finally {
      await s.dataSource.query('UPDATE resources SET remote_port = $2 WHERE id = $1', [resourceId, port]);
      await bindAsDecided(s.dataSource, resourceId);
    }
  });

  it('passes hostile account names as one identifier: only that account changes', async () => {
    for (const hostile of peer.hostileNames) {
      await peer.createAccount(P1, hostile);
      const aid = await addAccount(hostile, P1);
      const res = await call('put', `/resources/${resourceId}/accounts/${aid}/password`, { NEWPASSWORD: P2, RESETTYPE: 'REMOTE' });
      expect(res.result).toEqual({ status: 'Success', message: 'Password changed successfully' });
      expect(await peer.login(hostile, P2)).toBe(true);
      expect(await peer.adminIntact()).toBe(true);
    }
  });
});
