import request from 'supertest';
import { KeyFiles, keygenCreate, keygenFingerprint, keygenPublicFromPrivate } from '../../libs/ssh/src/ssh-keygen.test-helper';
import { SshKeyPool } from '@app/ssh/service';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';

const API = '/api/pki/restapi';

/** Buffers a download (supertest leaves octet-stream bodies unparsed otherwise). */
function binary(res: request.Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

describe('pki SSH keys (6565 layout)', () => {
  let s: TestServices;
  const files = new KeyFiles();
  beforeAll(async () => {
    s = await startTestServices({ SSH_KEY_POOL_SIZE: '2' }); // the production default keeps keys ahead; so does this file
  });
  afterAll(async () => {
    files.cleanup();
    await s.close();
  });

  const post = (op: string, details: Record<string, unknown>, token = s.adminToken) =>
    request(s.pkiUrl).post(`${API}/${op}`).set('AUTHTOKEN', token).type('form').send({ INPUT_DATA: inputData(details) });
  const get = (op: string, details: Record<string, unknown> = {}, token = s.adminToken) =>
    request(s.pkiUrl).get(`${API}/${op}`).set('AUTHTOKEN', token).query({ INPUT_DATA: inputData(details) });
  const exportKey = (keyName: string, keyExportType?: string) =>
    post('exportSSHKey', { keyName, ...(keyExportType ? { keyExportType } : {}) }).buffer(true).parse(binary);

  it('creates an RSA-2048 key, from the keys SSH_KEY_POOL_SIZE keeps ahead, and lists it with the spec fields', async () => {
    const pool = s.pki.get(SshKeyPool).pool;
    await pool.whenFull();
    expect(pool.available).toBe(2);
    const take = jest.spyOn(pool, 'take'); // with keys ready, take() hands out one of them
    const res = await post('createsshkey', { keyName: 'rsa-key', keyType: 'ssh-rsa', length: '2048', comment: 'ops@example' });
    expect(res.body).toEqual({ name: 'CreateSSHKey', result: { status: 'Success', message: 'New SSH key created successfully' } });
    expect(take).toHaveBeenCalledTimes(1);

    const list = await get('getAllSSHKeys');
    expect(list.body.name).toBe('GetAllSSHKeys');
    expect(list.body.totalRows).toBe(1);
    expect(list.body.details).toEqual([
      {
        KeyName: 'rsa-key',
        KeyType: 'ssh-rsa',
        KeyLength: '2048',
        FingerPrint: expect.stringMatching(/^SHA256:/),
        isPassphraseAvailable: false,
        CreatedBy: 'admin',
        CreationTime: 'Today',
      },
    ]);
  });

  it('refuses an unknown type or length with the allowed list, and a taken name', async () => {
    const bad = await post('createsshkey', { keyName: 'bad', keyType: 'ssh-rsa', length: '3072' });
    expect(bad.body.result).toEqual({
      status: 'Failed',
      message: 'Invalid key type/length. Allowed: ssh-rsa (1024, 2048, 4096), ssh-dss (1024), ed25519, ecdsa (256, 384, 521)',
    });
    const taken = await post('createsshkey', { keyName: 'RSA-KEY', keyType: 'ed25519' });
    expect(taken.body.result).toEqual({ status: 'Failed', message: 'SSH key RSA-KEY already exists' });
    const missing = await post('createsshkey', { keyType: 'ed25519' });
    expect(missing.body.result).toEqual({ status: 'Failed', message: 'keyName is required' });
  });

  it('creates a passphrase-protected ed25519 key whose export opens with ssh-keygen and whose fingerprint matches', async () => {
    const res = await post('createsshkey', { keyName: 'ed-key', keyType: 'ed25519', passPhrase: 'Correct-Horse-9', comment: 'ed@test' });
    expect(res.body.result.status).toBe('Success');

    const privateFile = await exportKey('ed-key', 'private');
    expect(privateFile.headers['content-type']).toContain('application/octet-stream');
    expect(privateFile.headers['content-disposition']).toContain('filename="ed-key"');
    const privatePath = files.write(privateFile.body.toString('utf8'));
    const publicFromPrivate = keygenPublicFromPrivate(privatePath, 'Correct-Horse-9');
    expect(publicFromPrivate).toMatch(/^ssh-ed25519 /);
    expect(keygenPublicFromPrivate(privatePath, 'wrong')).toBeNull();

    const publicFile = await exportKey('ed-key', 'public');
    expect(publicFile.body.toString('utf8')).toMatch(/^ssh-ed25519 \S+ ed@test\n$/);
    expect(publicFile.body.toString('utf8').split(' ').slice(0, 2)).toEqual(publicFromPrivate!.split(' ').slice(0, 2));

    const got = await post('getSSHKey', { keyName: 'ed-key' });
    expect(got.body.name).toBe('GetSSHKey');
    expect(got.body.details).toHaveLength(1);
    expect(got.body.details[0]).toMatchObject({ KeyName: 'ed-key', KeyType: 'ed25519', KeyLength: '256', isPassphraseAvailable: true });
    expect(got.body.details[0].FingerPrint).toBe(keygenFingerprint(files.write(publicFile.body.toString('utf8'))));

    const passphrase = await get('getSSHKeyPassphrase', { keyName: 'ed-key' });
    expect(passphrase.body).toEqual({
      name: 'GetSSHKeyPassphrase',
      result: { status: 'Success', message: 'Passphrase of SSH key ed-key fetched successfully' },
      details: { passphrase: 'Correct-Horse-9' },
    });
    const none = await get('getSSHKeyPassphrase', { keyName: 'rsa-key' });
    expect(none.body.result).toEqual({ status: 'Failed', message: 'SSH key rsa-key has no passphrase' });
  });

  it('keeps private keys and passphrases sealed at rest and audits every export and passphrase read', async () => {
    const [row] = await s.dataSource.query(`SELECT private_key, passphrase FROM ssh_keys WHERE name = 'ed-key'`);
    expect(row.private_key.toString('latin1')).not.toContain('PRIVATE KEY');
    expect(row.passphrase.toString('latin1')).not.toContain('Correct-Horse-9');
    const audit = await s.dataSource.query(`SELECT operation, category, target, description FROM audit WHERE category = 'Pki' ORDER BY id`);
    const operations = audit.map((a: { operation: string }) => a.operation);
    expect(operations.filter((o: string) => o === 'SSH Key Exported')).toHaveLength(2);
    expect(operations).toContain('SSH Key Passphrase Retrieved');
    expect(operations).toContain('SSH Key Created');
    expect(JSON.stringify(audit)).not.toContain('Correct-Horse-9');
  });

  it('imports OpenSSH and PEM keys with their passphrase through the File part, refusing wrong passphrases and non-keys', async () => {
    const pem = files.path('imported-pem');
    keygenCreate(pem, 'rsa', { passphrase: 'Pem-Pass-1', pem: true, bits: 2048 });
    const { readFileSync } = await import('node:fs');
    const upload = (keyName: string, file: Buffer, passphrase?: string) =>
      request(s.pkiUrl)
        .post(`${API}/addSSHKey`)
        .set('AUTHTOKEN', s.adminToken)
        .field('INPUT_DATA', inputData({ keyName, ...(passphrase ? { passphrase } : {}) }))
        .attach('File', file, 'id_rsa');

    const wrong = await upload('pem-key', readFileSync(pem), 'nope');
    expect(wrong.body).toEqual({ name: 'addSSHKey', result: { status: 'Failed', message: 'The passphrase is wrong or missing for this key' } });
    const notKey = await upload('junk', Buffer.from('hello world\n'));
    expect(notKey.body.result).toEqual({ status: 'Failed', message: 'The file is not an SSH private key' });
    const noFile = await request(s.pkiUrl).post(`${API}/addSSHKey`).set('AUTHTOKEN', s.adminToken).field('INPUT_DATA', inputData({ keyName: 'x' }));
    expect(noFile.body.result.status).toBe('Failed');
    expect(noFile.body.result.message).toMatch(/File is required/);
    expect(await s.dataSource.query(`SELECT name FROM ssh_keys WHERE name IN ('pem-key', 'junk', 'x')`)).toEqual([]);

    const ok = await upload('pem-key', readFileSync(pem), 'Pem-Pass-1');
    expect(ok.body).toEqual({ name: 'addSSHKey', result: { status: 'SUCCESS', message: 'SSH key pem-key imported successfully' } });
    const exported = await exportKey('pem-key');
    expect(keygenPublicFromPrivate(files.write(exported.body.toString('utf8')), 'Pem-Pass-1')).toMatch(/^ssh-rsa /);

    const openssh = files.path('imported-openssh');
    keygenCreate(openssh, 'ecdsa', { bits: 384 });
    const plain = await upload('ecdsa-key', readFileSync(openssh));
    expect(plain.body.result.status).toBe('SUCCESS');
    const list = await get('getAllSSHKeys');
    expect(list.body.details.find((k: { KeyName: string }) => k.KeyName === 'ecdsa-key')).toMatchObject({
      KeyType: 'ecdsa',
      KeyLength: '384',
      FingerPrint: keygenFingerprint(`${openssh}.pub`),
      isPassphraseAvailable: false,
    });
  });

  it('deletes a key', async () => {
    const res = await request(s.pkiUrl)
      .delete(`${API}/deleteSSHKey`)
      .set('AUTHTOKEN', s.adminToken)
      .query({ INPUT_DATA: inputData({ key_name: 'rsa-key', withoutDisassociation: 'false' }) });
    expect(res.body).toEqual({ name: 'DeleteSSHKey', result: { status: 'Success', message: 'SSH key rsa-key deleted successfully' } });
    const again = await post('getSSHKey', { keyName: 'rsa-key' });
    expect(again.body.result).toEqual({ status: 'Failed', message: 'SSH key rsa-key does not exist' });
  });

  it('accepts the token as a trailing path segment, and refuses changes to a read-only role', async () => {
    const res = await request(s.pkiUrl).get(`${API}/getAllSSHKeys/AUTHTOKEN=${s.adminToken}`);
    expect(res.body.result.status).toBe('Success');
    const auditor = await createUserWithToken(s, 'ssh-auditor', 'Password Auditor');
    const list = await get('getAllSSHKeys', {}, auditor.token);
    expect(list.body.result.status).toBe('Success');
    const create = await post('createsshkey', { keyName: 'auditor-key', keyType: 'ed25519' }, auditor.token);
    expect(create.body.result.status).toBe('Failed');
    expect(await s.dataSource.query(`SELECT 1 FROM ssh_keys WHERE name = 'auditor-key'`)).toEqual([]);
  });
});
