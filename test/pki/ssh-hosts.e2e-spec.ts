import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { startSshd, type SshdFixture } from '../support/sshd';

const API = '/api/pki/restapi';
const ADMIN_PASSWORD = 'Adm1n-Pass-word';
const USER_PASSWORD = 'Us3r-Pass-word';

function binary(res: request.Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

/** Proven with the real sshd and the real ssh client (test/support/sshd.ts). */
describe('pki SSH hosts, users and key associations against a real sshd (6565 layout)', () => {
  let s: TestServices;
  let sshd: SshdFixture;
  let admin: string;
  let user: string;
  let resourceName: string;

  beforeAll(async () => {
    [s, sshd] = await Promise.all([startTestServices(), startSshd()]);
    admin = await sshd.createUser(ADMIN_PASSWORD, { sudo: true });
    user = await sshd.createUser(USER_PASSWORD);
    resourceName = `127.0.0.1:${sshd.port}`;
  });
  afterAll(async () => {
    await s?.close();
    await sshd?.stop();
  });

  const post = (op: string, details: Record<string, unknown>) =>
    request(s.pkiUrl).post(`${API}/${op}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
  const get = (op: string, details: Record<string, unknown> = {}) =>
    request(s.pkiUrl).get(`${API}/${op}`).set('AUTHTOKEN', s.adminToken).query({ INPUT_DATA: inputData(details) });
  const authorizedKeys = (name: string) => {
    try {
      return readFileSync(join(sshd.homeOf(name), '.ssh', 'authorized_keys'), 'utf8');
    } catch {
      return '';
    }
  };
  const exportPrivate = async (keyName: string) =>
    (await post('exportSSHKey', { keyName, keyExportType: 'private' }).buffer(true).parse(binary)).body.toString('utf8') as string;
  const count = async (table: string) => Number((await s.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n);

  describe('failures write nothing', () => {
    it('answers a closed port clearly', async () => {
      const res = await post('applycredentials', { userName: admin, password: ADMIN_PASSWORD, resourceName: '127.0.0.1:1', isAdmin: 'true' });
      expect(res.body).toEqual({
        name: 'ApplyCredentials',
        result: { status: 'Failed', message: 'Credentials for 127.0.0.1:1 were not applied: Cannot reach 127.0.0.1:1: connection refused' },
      });
      expect(await count('ssh_resources')).toBe(0);
    });

    it('answers bad credentials clearly', async () => {
      const res = await post('applycredentials', { userName: admin, password: 'not-the-password', resourceName, isAdmin: 'true' });
      expect(res.body.result).toEqual({
        status: 'Failed',
        message: `Credentials for ${resourceName} were not applied: Authentication to ${resourceName} as ${admin} failed`,
      });
      expect(await count('ssh_resources')).toBe(0);
    });

    it('refuses isAdmin for an account that is neither root nor a sudoer', async () => {
      const res = await post('applycredentials', { userName: user, password: USER_PASSWORD, resourceName, isAdmin: 'true' });
      expect(res.body.result.status).toBe('Failed');
      expect(res.body.result.message).toContain('is neither root nor allowed to use sudo');
      expect(await count('ssh_resources')).toBe(0);
    });

    it('answers operations on unknown resources', async () => {
      const res = await post('enumerateusers', { userName: admin, resourceName: 'nowhere.example' });
      expect(res.body.result).toEqual({ status: 'Failed', message: 'SSH resource nowhere.example does not exist' });
      const odd = await get('getSSHkeysforuser', { userName: 'u', resourceName: 'not a host' });
      expect(odd.body.result).toEqual({ status: 'Failed', message: 'SSH resource not a host does not exist' });
    });
  });

  it('applies credentials, creating the SSH resource, sealed', async () => {
    const res = await post('applycredentials', { userName: admin, password: ADMIN_PASSWORD, resourceName, isAdmin: 'true' });
    expect(res.body).toEqual({
      name: 'ApplyCredentials',
      result: { status: 'Success', message: `Credentials applied successfully to SSH resource ${resourceName}` },
    });
    const [row] = await s.dataSource.query('SELECT login_password FROM ssh_resources');
    expect(row.login_password.toString('latin1')).not.toContain(ADMIN_PASSWORD);

    const list = await get('getAllSSHResourceDetails');
    expect(list.body).toEqual({
      name: 'GetAllSSHResources',
      result: { status: 'Success', message: 'SSH resources fetched successfully' },
      totalRows: 1,
      details: [
        {
          Path: resourceName,
          Description: '',
          ResourceId: expect.any(Number),
          ResourceName: resourceName,
          Port: sshd.port,
          CreationTime: 'Today',
          IPADDRESS: '127.0.0.1',
          LandingServerName: '',
          HOSTKEYFINGERPRINT: await sshd.hostKeyFingerprint(),
        },
      ],
    });
  });

  /** Pki audit rows written since audit id `after`, oldest first. */
  const pkiAuditSince = async (after: number) =>
    s.dataSource.query(`SELECT operation, outcome, target, description FROM audit WHERE id > $1 AND category = 'Pki' ORDER BY id`, [after]);
  const maxAudit = async () => Number((await s.dataSource.query('SELECT coalesce(max(id), 0) AS id FROM audit'))[0].id);

  it('enumerates the login users of the host and lists them', async () => {
    const from = await maxAudit();
    const res = await post('enumerateusers', { userName: admin, resourceName });
    // Issue 24: the stored login is used on the caller's behalf: decided and audited before the login.
    expect(await pkiAuditSince(from)).toEqual([
      { operation: 'Password Used', outcome: 'Success', target: resourceName, description: `SSH login as ${admin} to ${resourceName}: enumerate login users` },
      expect.objectContaining({ operation: 'SSH Users Enumerated', outcome: 'Success' }),
    ]);
    expect(res.body.name).toBe('EnumerateUsers');
    expect(res.body.result.status).toBe('Success');
    expect(res.body.result.message).toMatch(new RegExp(`^User enumeration started for ${resourceName.replace(/\./g, '\\.')}`));
    const users = await get('getAllSSHUsers');
    expect(users.body.name).toBe('GetAllSSHUsers');
    expect(users.body.details).toEqual(expect.arrayContaining([{ UserName: user, ResourceName: resourceName }, { UserName: admin, ResourceName: resourceName }]));
    expect(users.body.totalRows).toBe(users.body.details.length);
  });

  describe('associating a key', () => {
    beforeAll(async () => {
      await post('createsshkey', { keyName: 'deploy-key', keyType: 'ed25519', passPhrase: 'Key-Pass-1' });
      await post('createsshkey', { keyName: 'other-key', keyType: 'ecdsa', length: '256' });
    });

    it('lets the user log in with the private key exported through the API, with one line however often it is associated', async () => {
      const keyFile = sshd.writeKeyFile(await exportPrivate('other-key'));
      expect((await sshd.clientLogin(user, { identityFile: keyFile })).ok).toBe(false);

      const from = await maxAudit();
      const res = await post('associateKey', { keyName: 'other-key', resourceName, userName: user });
      expect((await pkiAuditSince(from)).map((r: { operation: string }) => r.operation)).toEqual(['Password Used', 'SSH Key Associated']);
      expect(res.body).toEqual({
        name: 'associateKey',
        result: { status: 'Success', message: `SSH key other-key associated successfully with ${user} on ${resourceName}` },
      });
      const again = await post('associateKey', { keyName: 'other-key', resourceName, userName: user });
      expect(again.body.result.status).toBe('Success');
      expect(authorizedKeys(user).trim().split('\n')).toHaveLength(1);

      const login = await sshd.clientLogin(user, { identityFile: keyFile });
      expect(login).toMatchObject({ ok: true });
    });

    it('reports what is deployed', async () => {
      await post('associateKey', { keyName: 'deploy-key', resourceName, userName: user });
      const keys = await get('getSSHkeysforuser', { userName: user, resourceName });
      expect(keys.body).toEqual({
        name: 'GetSSHKeysForUser',
        result: { status: 'Success', message: `SSH keys of ${user} fetched successfully` },
        details: 'deploy-key,other-key',
      });
      const users = await get('getAllAssociatedUsers');
      expect(users.body).toEqual({
        name: 'GetAllAssociatedUsers',
        result: { status: 'Success', message: 'Associated users fetched successfully' },
        totalRows: 1,
        details: [{ UserName: user, ResourceName: resourceName }],
      });
    });

    it('dissociates exactly that key: the login fails and every other line stays', async () => {
      const keyFile = sshd.writeKeyFile(await exportPrivate('other-key'));
      const file = join(sshd.homeOf(user), '.ssh', 'authorized_keys');
      writeFileSync(file, `${authorizedKeys(user)}# a comment the user wrote\n`);
      const before = authorizedKeys(user).split('\n');

      const res = await post('dissociateKey', { keyName: 'other-key', resourceName, userName: user });
      expect(res.body).toEqual({
        name: 'dissociateKey',
        result: { status: 'SUCCESS', message: `SSH key other-key dissociated successfully from ${user} on ${resourceName}` },
      });
      const after = authorizedKeys(user).split('\n');
      expect(after).toHaveLength(before.length - 1);
      expect(after).toContain('# a comment the user wrote');
      expect((await sshd.clientLogin(user, { identityFile: keyFile })).ok).toBe(false);

      const again = await post('dissociateKey', { keyName: 'other-key', resourceName, userName: user });
      expect(again.body.result).toEqual({ status: 'Failed', message: `SSH key other-key is not associated with ${user} on ${resourceName}` });
      expect((await get('getSSHkeysforuser', { userName: user, resourceName })).body.details).toBe('deploy-key');
    });

    it('answers a user missing on the host clearly and records nothing', async () => {
      const res = await post('associateKey', { keyName: 'other-key', resourceName, userName: 'nosuchuser1' });
      expect(res.body.result).toEqual({
        status: 'Failed',
        message: `SSH key other-key was not associated with nosuchuser1 on ${resourceName}: User nosuchuser1 does not exist on ${resourceName}`,
      });
      expect(await s.dataSource.query(`SELECT 1 FROM ssh_key_associations WHERE user_name = 'nosuchuser1'`)).toEqual([]);
    });

    it('deleting a key first removes it from every host it was placed on', async () => {
      // Passphrase-protected: ssh -i cannot use it in batch mode, so the file itself is checked.
      const line = (await post('exportSSHKey', { keyName: 'deploy-key', keyExportType: 'public' }).buffer(true).parse(binary)).body.toString('utf8').trim();
      expect(authorizedKeys(user)).toContain(line.split(' ')[1]);

      const res = await request(s.pkiUrl)
        .delete(`${API}/deleteSSHKey`)
        .set('AUTHTOKEN', s.adminToken)
        .query({ INPUT_DATA: inputData({ key_name: 'deploy-key', withoutDisassociation: 'false' }) });
      expect(res.body).toEqual({ name: 'DeleteSSHKey', result: { status: 'Success', message: 'SSH key deploy-key deleted successfully' } });
      expect(authorizedKeys(user)).not.toContain(line.split(' ')[1]);
      expect(await count('ssh_key_associations')).toBe(0);
      const audit = await s.dataSource.query(`SELECT operation FROM audit WHERE category = 'Pki' AND operation IN ('SSH Key Dissociated', 'SSH Key Deleted') ORDER BY id`);
      expect(audit.map((a: { operation: string }) => a.operation).slice(-2)).toEqual(['SSH Key Dissociated', 'SSH Key Deleted']);
    });

    it('keeps the key and its records when the host cannot be reached during deletion', async () => {
      await post('associateKey', { keyName: 'other-key', resourceName, userName: user });
      await s.dataSource.query('UPDATE ssh_resources SET port = 1');
      try {
        const res = await request(s.pkiUrl)
          .delete(`${API}/deleteSSHKey`)
          .set('AUTHTOKEN', s.adminToken)
          .query({ INPUT_DATA: inputData({ key_name: 'other-key' }) });
        expect(res.body.result.status).toBe('Failed');
        expect(res.body.result.message).toBe('SSH key other-key was not deleted: Cannot reach 127.0.0.1:1: connection refused');
        expect(await count('ssh_key_associations')).toBe(1);
        expect((await get('getAllSSHKeys')).body.details.map((k: { KeyName: string }) => k.KeyName)).toContain('other-key');
      } finally {
        await s.dataSource.query('UPDATE ssh_resources SET port = $1', [sshd.port]);
      }
    });
  });

  describe('SSH host discovery (extra operation)', () => {
    it('finds sshd by its banner in a loopback range and records it, reporting the others as failures', async () => {
      const res = await post('sshHostDiscovery', { StartIpAddress: '127.0.0.1', EndIpAddress: '127.0.0.3', PORT: String(sshd.port), TIMEOUT: '3' });
      expect(res.body.name).toBe('Get SSH Discovery');
      expect(res.body.result.status).toBe('Success');
      expect(res.body.totalRows).toBe(3);
      expect(res.body.details['127.0.0.1'][0]).toBe('SUCCESS');
      expect(res.body.details['127.0.0.1'][1]).toMatch(/^SSH-2\.0-OpenSSH/);
      expect(res.body.details['127.0.0.2']).toEqual(['FAILURE', `Cannot reach 127.0.0.2:${sshd.port}: connection refused`]);
      expect(await count('ssh_resources')).toBe(1);
    });

    it('refuses a range above the limit and a bad address', async () => {
      const big = await post('sshHostDiscovery', { StartIpAddress: '10.0.0.0', EndIpAddress: '10.0.4.0' });
      expect(big.body.result).toEqual({ status: 'Failed', message: 'Range too large: 1025 addresses (maximum 256)' });
      const bad = await post('sshHostDiscovery', { StartIpAddress: '10.0.0.300', EndIpAddress: '10.0.0.1' });
      expect(bad.body.result).toEqual({ status: 'Failed', message: 'Invalid IP address: 10.0.0.300' });
    });
  });
});
