import { PasswordVerifier } from '../../apps/vault/src/remote-reset/password-verifier';
import { startTestServices, TestServices } from '../support/app';
import { ConnectionSink, startConnectionSink } from '../support/connection-sink';
import { createResource } from '../support/factories';
import { bindAsDecided } from '../support/destination';
import { startRecordingPostgres } from '../support/recording-postgres';
import { call, share, TestUser, user } from './workflow-helpers';

const V1 = '/restapi/json/v1';

/*
 * Issue 33: a stored password goes only where a decision sent it. A Password Administrator
 * with a full-access share on a PostgreSQL resource whose accounts are under two-approver
 * access control could name an account of her own as the administrator and point the
 * resource at her listener: the server's periodic verification then logged in there as each
 * controlled account, with its stored password. The listener here counts connections: any
 * connection would carry a password.
 */
describe('a stored password is bound to its destination', () => {
  let s: TestServices;
  let home: ConnectionSink;
  let listener: ConnectionSink;
  let mallory: TestUser;
  let rid: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    [s, home, listener] = await Promise.all([startTestServices({ VERIFY_INTERVAL_MS: '0' }), startConnectionSink(), startConnectionSink()]);
    mallory = await user(s, 'Password Administrator', 'mallory');
    const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'payments-db', RESOURCETYPE: 'PostgreSQL', DNSNAME: '127.0.0.1', ACCOUNTNAME: 'vaultadmin' });
    rid = r.resourceId;
    ids.vaultadmin = r.accountId;
    const added = await call(s.vaultUrl, 'post', `${V1}/resources/${rid}/accounts`, s.adminToken, {
      ACCOUNTLIST: [{ ACCOUNTNAME: 'dba', PASSWORD: 'Dba-Secret-Pass-1' }, { ACCOUNTNAME: 'm', PASSWORD: 'Mallory-Pass-word-1' }],
    });
    expect(added.result.status).toBe('Success');
    for (const row of await s.dataSource.query('SELECT id, name FROM accounts WHERE resource_id = $1', [rid])) ids[row.name] = row.id;
    // Configured by the super administrator for the real target (`home`), as the remote-reset path binds it.
    await s.dataSource.query(`UPDATE resources SET remote_account_id = $2, remote_port = $3, remote_tls = 'off' WHERE id = $1`, [rid, ids.vaultadmin, home.port]);
    await bindAsDecided(s.dataSource, rid);
    for (const name of ['vaultadmin', 'dba']) {
      const op = await call(s.vaultUrl, 'put', `${V1}/resources/${rid}/accounts/${ids[name]}/accesscontrol`, s.adminToken, {
        APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 2, ADMINS_APPROVE: 'false', EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30,
      });
      expect(op.result.status).toBe('Success');
    }
    await share(s, rid, mallory.id, 'fullaccess');
  }, 60_000);
  afterAll(async () => {
    await Promise.all([home?.close(), listener?.close()]);
    await s?.close();
  });

  const settings = async () => (await s.dataSource.query('SELECT remote_account_id, remote_port, remote_tls FROM resources WHERE id = $1', [rid]))[0];
  const verifyAsServer = (name: string) => s.vault.get(PasswordVerifier).verifyForServer(ids[name], 'the periodic verification');
  const auditOf = (operation: string) => s.dataSource.query('SELECT account_name, actor_name, description FROM audit WHERE operation = $1 AND resource_id = $2 ORDER BY id', [operation, rid]);

  it('naming her own account as administrator with her listener is refused, naming the first account she may not use; nothing moves', async () => {
    const before = await settings();
    const op = await call(s.vaultUrl, 'put', `${V1}/resources/${rid}/remotepasswordreset`, mallory.token, { ACCOUNTNAME: 'm', PORT: listener.port, TLS: 'off' });
    expect(op.result.status).toBe('Failed');
    expect(op.result.message).toMatch(/access control/);
    expect(await settings()).toEqual(before);
    // Her use of m was decided; the refusal names vaultadmin, the first account the server would have sent there.
    const denied = await auditOf('Password Use Denied');
    expect(denied.map((row: { account_name: string }) => row.account_name)).toEqual(['vaultadmin']);
    // The server's own verification still goes home only.
    await verifyAsServer('dba');
    expect(listener.connections()).toBe(0);
    expect(home.connections()).toBeGreaterThanOrEqual(1);
  });

  it('adding an account to the managed resource is the administrator’s redirect decision: refused, nothing added', async () => {
    const op = await call(s.vaultUrl, 'post', `${V1}/resources/${rid}/accounts`, mallory.token, { ACCOUNTLIST: [{ ACCOUNTNAME: 'postgres', PASSWORD: 'Chosen-By-Her-1' }] });
    expect(op.result.status).toBe('Failed');
    expect(await s.dataSource.query(`SELECT id FROM accounts WHERE resource_id = $1 AND name = 'postgres'`, [rid])).toEqual([]);
  });

  it('a destination changed without a decision: the server sends nothing, shows DESTINATION CHANGED, one row names both', async () => {
    // A path that writes the destination without the gate (none is left in the product; this is the net under a future one).
    await s.dataSource.query('UPDATE resources SET remote_port = $2 WHERE id = $1', [rid, listener.port]);
    const homeBefore = home.connections();
    try {
      const result = await verifyAsServer('dba');
      expect(result?.status).toBe('DESTINATION CHANGED');
      const change = await call(s.vaultUrl, 'put', `${V1}/resources/${rid}/accounts/${ids.m}/password`, mallory.token, { NEWPASSWORD: 'Mallory-Pass-word-2', RESETTYPE: 'REMOTE' });
      expect(change.result.status).toBe('Failed');
      expect(listener.connections()).toBe(0);
      expect(home.connections()).toBe(homeBefore);
      const [row] = await s.dataSource.query('SELECT password_status FROM accounts WHERE id = $1', [ids.dba]);
      expect(row.password_status).toBe('DESTINATION CHANGED');
      const changed = (await auditOf('Destination Changed')).filter((r: { account_name: string }) => r.account_name === 'dba');
      expect(changed).toHaveLength(1);
      expect(changed[0].actor_name).toBe('System');
      expect(changed[0].description).toContain(`port ${home.port}`);
      expect(changed[0].description).toContain(`port ${listener.port}`);
    } finally {
      await s.dataSource.query('UPDATE resources SET remote_port = $2 WHERE id = $1', [rid, home.port]);
    }
  });

  it('the super administrator moves the destination (the administrator’s own decision, not dba’s): every binding moves, audited per account', async () => {
    const relaxed = await call(s.vaultUrl, 'put', `${V1}/resources/${rid}/accounts/${ids.vaultadmin}/accesscontrol`, s.adminToken, { ENABLED: 'false' });
    expect(relaxed.result.status).toBe('Success');
    const op = await call(s.vaultUrl, 'put', `${V1}/resources/${rid}/`, s.adminToken, { DNSNAME: '127.0.0.2' });
    expect(op.result).toEqual({ status: 'Success', message: 'Resource  modified successfully.' });
    const approved = (await auditOf('Destination Approved')).map((r: { account_name: string; description: string }) => [r.account_name, r.description.includes('127.0.0.2')]);
    expect(approved.sort()).toEqual([['dba', true], ['m', true], ['vaultadmin', true]]);
    const bound = await s.dataSource.query('SELECT count(*)::int AS n FROM accounts WHERE resource_id = $1 AND bound_destination LIKE $2', [rid, '%127.0.0.2 %']);
    expect(bound[0].n).toBe(3);
  });

  it('TLS off needs a super administrator; even then a peer asking for the clear-text password receives nothing (recording peer)', async () => {
    const peer = await startRecordingPostgres('cleartext');
    try {
      const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'recorded-db', RESOURCETYPE: 'PostgreSQL', DNSNAME: '127.0.0.1', ACCOUNTNAME: 'owner_admin' });
      await share(s, r.resourceId, mallory.id, 'fullaccess');
      const byHer = await call(s.vaultUrl, 'put', `${V1}/resources/${r.resourceId}/remotepasswordreset`, mallory.token, { ACCOUNTNAME: 'owner_admin', PORT: peer.port, TLS: 'off' });
      expect(byHer.result).toEqual({ status: 'Failed', message: 'TLS off for recorded-db needs a super administrator; use TLS verify (or require)' });
      const bySuper = await call(s.vaultUrl, 'put', `${V1}/resources/${r.resourceId}/remotepasswordreset`, s.adminToken, { ACCOUNTNAME: 'owner_admin', PORT: peer.port, TLS: 'off' });
      expect(bySuper.result.status).toBe('Failed');
      expect(bySuper.result.message).toMatch(/asked for the password of owner_admin in clear text; it is sent only with SCRAM, or over TLS verify/);
      expect(peer.users).toEqual(['owner_admin']);
      expect(peer.passwords).toEqual([]);
    } finally {
      await peer.close();
    }
  });
});
