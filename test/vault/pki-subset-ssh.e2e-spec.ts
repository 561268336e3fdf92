import { readFileSync } from 'node:fs';
import request from 'supertest';
import { KeyFiles, keygenCreate } from '../../libs/ssh/src/ssh-keygen.test-helper';
import { startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { startSshd, type SshdFixture } from '../support/sshd';

const API = '/api/pki/restapi';

function binary(res: request.Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

/** The vault's prefix-B presentation on 7272 (docs/api/vault.md, prefix B): same domain, its own layout. */
describe('vault prefix B SSH subset against a real sshd', () => {
  let s: TestServices;
  let sshd: SshdFixture;
  let user: string;
  let resourceName: string;
  const files = new KeyFiles();

  beforeAll(async () => {
    [s, sshd] = await Promise.all([startTestServices(), startSshd()]);
    const admin = await sshd.createUser('Adm1n-Pass-word', { sudo: true });
    user = await sshd.createUser('Us3r-Pass-word');
    resourceName = `127.0.0.1:${sshd.port}`;
    // Host credentials are applied on the pki service; both services share the domain.
    const applied = await request(s.pkiUrl)
      .post(`${API}/applycredentials`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ userName: admin, password: 'Adm1n-Pass-word', resourceName, isAdmin: 'true' }) });
    expect(applied.body.result.status).toBe('Success');
  });
  afterAll(async () => {
    files.cleanup();
    await s?.close();
    await sshd?.stop();
  });

  const post = (op: string, details: Record<string, unknown>) =>
    request(s.vaultUrl).post(`${API}/${op}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
  const get = (op: string, details: Record<string, unknown> = {}) =>
    request(s.vaultUrl).get(`${API}/${op}`).query({ AUTHTOKEN: s.adminToken, INPUT_DATA: inputData(details) });

  it('creates a key and lists it under SSHKeys with the vault fields', async () => {
    const res = await post('createsshkey', { keyName: 'vault-key', keyType: 'ecdsa', length: '521', comment: 'v@test' });
    expect(res.body).toEqual({ name: 'CreateSSHKey', result: { status: 'Success', message: 'New SSH key created successfully' } });
    const list = await get('getAllSSHKeys');
    expect(list.body).toEqual({
      name: 'GetAllSSHKeys',
      result: { status: 'Success', message: 'SSH keys fetched successfully' },
      totalRows: 1,
      SSHKeys: [
        { KeyName: 'vault-key', KeyType: 'ecdsa', KeyLength: '521', FingerPrint: expect.stringMatching(/^SHA256:/), CreatedBy: 'admin', CreationTime: 'Today' },
      ],
    });
    const one = await post('getSSHKey', { keyName: 'vault-key' });
    expect(one.body.name).toBe('GetSSHKey');
    expect(one.body.SSHKey).toEqual(list.body.SSHKeys);
    expect(one.body.details).toBeUndefined();
  });

  it('imports a key from the File part with status SUCCESS', async () => {
    const path = files.path('rsa');
    keygenCreate(path, 'rsa', { bits: 2048, passphrase: 'Imp-Pass-1' });
    const res = await request(s.vaultUrl)
      .post(`${API}/addSSHKey`)
      .field('AUTHTOKEN', s.adminToken)
      .field('INPUT_DATA', inputData({ keyName: 'imported', passphrase: 'Imp-Pass-1' }))
      .attach('File', readFileSync(path), 'id_rsa');
    expect(res.body).toEqual({ name: 'addSSHKey', result: { status: 'SUCCESS', message: 'SSH key imported imported successfully' } });
  });

  it('associates through the vault: the user logs in with the key exported by the vault, and not after dissociation', async () => {
    const exported = await post('exportSSHKey', { keyName: 'vault-key' }).buffer(true).parse(binary);
    const keyFile = sshd.writeKeyFile(exported.body.toString('utf8'));

    const res = await post('associateKey', { keyName: 'vault-key', resourceName, userName: user });
    expect(res.body).toEqual({
      name: 'associateKey',
      result: { status: 'Success', message: `SSH key vault-key associated successfully with ${user} on ${resourceName}` },
    });
    expect((await sshd.clientLogin(user, { identityFile: keyFile })).ok).toBe(true);

    const keys = await get('getSSHkeysforuser', { userName: user, resourceName });
    expect(keys.body).toEqual({
      name: 'GetSSHKeysForUser',
      result: { status: 'Success', message: `SSH keys of ${user} fetched successfully` },
      Keys: 'vault-key',
    });
    const users = await get('getAllAssociatedUsers');
    expect(users.body).toEqual({
      name: 'GetAllAssociatedUsers',
      result: { status: 'Success', message: 'Associated users fetched successfully' },
      totalRows: 1,
      AllAssociatedUsers: [{ UserName: user, ResourceName: resourceName }],
    });

    const off = await post('dissociateKey', { keyName: 'vault-key', resourceName, userName: user });
    expect(off.body).toEqual({
      name: 'dissociateKey',
      result: { status: 'SUCCESS', message: `SSH key vault-key dissociated successfully from ${user} on ${resourceName}` },
    });
    expect((await sshd.clientLogin(user, { identityFile: keyFile })).ok).toBe(false);
    const none = await get('getAllAssociatedUsers');
    expect(none.body).toEqual({
      name: 'GetAllAssociatedUsers',
      result: { status: 'Success', message: 'Associated users fetched successfully' },
      totalRows: 0,
      AllAssociatedUsers: [],
    });
  });

  it('answers a failure on the host in the prefix-B layout and records nothing', async () => {
    const res = await post('associateKey', { keyName: 'vault-key', resourceName, userName: 'nosuchuser2' });
    expect(res.body).toEqual({
      name: 'associateKey',
      result: { status: 'Failed', message: `SSH key vault-key was not associated with nosuchuser2 on ${resourceName}: User nosuchuser2 does not exist on ${resourceName}` },
    });
    expect(await s.dataSource.query('SELECT 1 FROM ssh_key_associations')).toEqual([]);
  });

  it('deletes a key', async () => {
    const res = await request(s.vaultUrl)
      .delete(`${API}/deleteSSHKey`)
      .set('AUTHTOKEN', s.adminToken)
      .query({ INPUT_DATA: inputData({ key_name: 'imported', withoutDisassociation: 'true' }) });
    expect(res.body).toEqual({ name: 'DeleteSSHKey', result: { status: 'Success', message: 'SSH key imported deleted successfully' } });
    const list = await get('getAllSSHKeys');
    expect(list.body.SSHKeys.map((k: { KeyName: string }) => k.KeyName)).toEqual(['vault-key']);
  });
});
