import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { startSshd, type SshdFixture } from '../support/sshd';
import { bindAsDecided } from '../support/destination';

const V1 = '/restapi/json/v1';
const ADMIN_PASSWORD = 'Adm1n-Pass-word';
const OLD_PASSWORD = 'Old-Pass-word-1';
const NEW_PASSWORD = 'New-Pass-word-2';

/** RESETTYPE=REMOTE on a Linux resource, proven by logging in with the real ssh client. */
describe('vault remote password reset over SSH (RESETTYPE=REMOTE)', () => {
  let s: TestServices;
  let sshd: SshdFixture;
  let admin: string;
  let user: string;
  let resourceId: number;
  let accountId: number;

  beforeAll(async () => {
    [s, sshd] = await Promise.all([startTestServices(), startSshd()]);
    admin = await sshd.createUser(ADMIN_PASSWORD, { sudo: true });
    user = await sshd.createUser(OLD_PASSWORD);
    const resource = await createResource(s.vaultUrl, s.adminToken, {
      RESOURCENAME: 'linux-host',
      RESOURCETYPE: 'Linux',
      DNSNAME: '127.0.0.1',
      ACCOUNTNAME: admin,
      PASSWORD: ADMIN_PASSWORD,
    });
    resourceId = resource.resourceId;
    const added = await request(s.vaultUrl)
      .post(`${V1}/resources/${resourceId}/accounts`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ ACCOUNTLIST: [{ ACCOUNTNAME: user, PASSWORD: OLD_PASSWORD }] }) });
    expect(added.body.operation.result.status).toBe('Success');
    const accounts = await request(s.vaultUrl).get(`${V1}/resources/${resourceId}/accounts`).set('AUTHTOKEN', s.adminToken);
    accountId = Number(accounts.body.operation.Details['ACCOUNT LIST'].find((a: Record<string, string>) => a['ACCOUNT NAME'] === user)['ACCOUNT ID']);
  });
  afterAll(async () => {
    await s?.close();
    await sshd?.stop();
  });

  const changeRemote = (newPassword: string, rid = resourceId, aid = accountId) =>
    request(s.vaultUrl)
      .put(`${V1}/resources/${rid}/accounts/${aid}/password`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ NEWPASSWORD: newPassword, RESETTYPE: 'REMOTE', REASON: 'rotation' }) });
  const configure = (details: Record<string, unknown>) =>
    request(s.vaultUrl).put(`${V1}/resources/${resourceId}/remotepasswordreset`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
  const storedPassword = async () =>
    (await request(s.vaultUrl).get(`${V1}/resources/${resourceId}/accounts/${accountId}/password`).set('AUTHTOKEN', s.adminToken)).body.operation.Details.PASSWORD;

  it('explains that remote reset is not configured yet, and changes nothing', async () => {
    const res = await changeRemote(NEW_PASSWORD);
    expect(res.body.operation.name).toBe('CHANGE PASSWORD');
    expect(res.body.operation.result).toEqual({
      status: 'Failed',
      message: `Remote password reset is not configured for resource linux-host: name its administrator account with PUT /restapi/json/v1/resources/${resourceId}/remotepasswordreset`,
    });
    expect(await storedPassword()).toBe(OLD_PASSWORD);
  });

  it('refuses a configuration whose admin account cannot log in, and writes nothing', async () => {
    const res = await configure({ ACCOUNTNAME: admin, PORT: '1' });
    expect(res.body.operation).toEqual({
      name: 'CONFIGURE REMOTE PASSWORD RESET',
      result: { status: 'Failed', message: 'Remote password reset was not configured for linux-host: Cannot reach 127.0.0.1:1: connection refused' },
    });
    const [row] = await s.dataSource.query('SELECT remote_account_id, remote_port FROM resources WHERE id = $1', [resourceId]);
    expect(row).toEqual({ remote_account_id: null, remote_port: null });
  });

  it('configures the admin account after proving it logs in with root rights', async () => {
    const res = await configure({ ACCOUNTNAME: admin, PORT: String(sshd.port) });
    expect(res.body.operation.result).toEqual({ status: 'Success', message: 'Remote password reset configured for resource linux-host' });
    const described = await request(s.vaultUrl).get(`${V1}/resources/${resourceId}/remotepasswordreset`).set('AUTHTOKEN', s.adminToken);
    expect(described.body.operation.Details).toMatchObject({ HOST: '127.0.0.1', PORT: String(sshd.port), ACCOUNTNAME: admin, CONFIGURED: 'true' });
    // The configuration's login pinned the host key (trust on first use): the description shows it.
    expect(described.body.operation.Details.HOSTKEYFINGERPRINT).toBe(await sshd.hostKeyFingerprint());
  });

  it('changes the password on the host, then in the vault: the new one logs in, the old one does not', async () => {
    expect((await sshd.clientLogin(user, { password: OLD_PASSWORD })).ok).toBe(true);
    const res = await changeRemote(NEW_PASSWORD);
    expect(res.body.operation).toEqual({ name: 'CHANGE PASSWORD', result: { status: 'Success', message: 'Password changed successfully' } });
    expect((await sshd.clientLogin(user, { password: NEW_PASSWORD })).ok).toBe(true);
    expect((await sshd.clientLogin(user, { password: OLD_PASSWORD })).ok).toBe(false);
    expect(await storedPassword()).toBe(NEW_PASSWORD);
    const [audit] = await s.dataSource.query(`SELECT operation, description FROM audit WHERE account_id = $1 AND operation = 'Password Changed'`, [accountId]);
    expect(audit.description).toContain('remote reset');
    expect(JSON.stringify(await s.dataSource.query('SELECT * FROM audit'))).not.toContain(NEW_PASSWORD);
  });

  it('when the host refuses, nothing changes in the vault and the message says why', async () => {
    await s.dataSource.query('UPDATE resources SET remote_port = 1 WHERE id = $1', [resourceId]);
    await bindAsDecided(s.dataSource, resourceId);
    try {
      const res = await changeRemote('Third-Pass-word-3');
      expect(res.body.operation.result).toEqual({
        status: 'Failed',
        message: `The password of ${user} was not changed (the host refused; nothing was changed in the vault): Cannot reach 127.0.0.1:1: connection refused`,
      });
      expect(await storedPassword()).toBe(NEW_PASSWORD);
      expect((await sshd.clientLogin(user, { password: NEW_PASSWORD })).ok).toBe(true);
      const failed = await s.dataSource.query(`SELECT outcome FROM audit WHERE account_id = $1 AND operation = 'Password Change Failed'`, [accountId]);
      expect(failed).toEqual([{ outcome: 'Failed' }]);
    } finally {
      await s.dataSource.query('UPDATE resources SET remote_port = $2 WHERE id = $1', [resourceId, sshd.port]);
      await bindAsDecided(s.dataSource, resourceId);
    }
  });

  it('checks the policy before touching the host', async () => {
    const res = await changeRemote('short');
    expect(res.body.operation.result.status).toBe('Failed');
    expect(res.body.operation.result.message).toMatch(/does not comply with the Strong policy/);
    expect((await sshd.clientLogin(user, { password: NEW_PASSWORD })).ok).toBe(true);
  });

  it('answers an account missing on the host clearly', async () => {
    const ghost = await request(s.vaultUrl)
      .post(`${V1}/resources/${resourceId}/accounts`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ ACCOUNTLIST: [{ ACCOUNTNAME: 'ghostuser', PASSWORD: OLD_PASSWORD }] }) });
    expect(ghost.body.operation.result.status).toBe('Success');
    const [row] = await s.dataSource.query(`SELECT id FROM accounts WHERE name = 'ghostuser'`);
    const res = await changeRemote(NEW_PASSWORD, resourceId, row.id);
    expect(res.body.operation.result.message).toBe(
      `The password of ghostuser was not changed (the host refused; nothing was changed in the vault): User ghostuser does not exist on 127.0.0.1:${sshd.port}`,
    );
  });

  it('is not available to a user who cannot see the resource', async () => {
    const other = await createUserWithToken(s, 'remote-outsider', 'Password Administrator');
    const res = await request(s.vaultUrl)
      .put(`${V1}/resources/${resourceId}/remotepasswordreset`)
      .set('AUTHTOKEN', other.token)
      .type('form')
      .send({ INPUT_DATA: inputData({ ACCOUNTNAME: admin }) });
    expect(res.body.operation.result).toEqual({ status: 'Failed', message: 'No such account found' });
  });
});
