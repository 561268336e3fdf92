import * as openpgp from 'openpgp';
import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';

const API = '/api/pki/restapi';

describe('pki getPGPKey (op 40)', () => {
  let s: TestServices;

  beforeAll(async () => {
    s = await startTestServices();
    await createUserWithToken(s, 'DOMAIN\\jdoe');
    await createUserWithToken(s, 'a b');
  });
  afterAll(() => s.close());

  const getKey = (details: Record<string, string>, token = s.adminToken) =>
    request(s.pkiUrl)
      .get(`${API}/getPGPKey`)
      .set('AUTHTOKEN', token)
      .query({ INPUT_DATA: inputData(details) })
      .buffer(true)
      .parse((res, callback) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => callback(null, text));
      });

  it('makes a key pair on first use and exports the armoured public key', async () => {
    const res = await getKey({ User: 'DOMAIN\\\\jdoe', keyExportType: 'public' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/pgp-keys/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="DOMAIN_jdoe_public.asc"');
    const key = await openpgp.readKey({ armoredKey: res.body });
    expect(key.isPrivate()).toBe(false);
    expect(key.getUserIDs()).toEqual(['DOMAIN\\jdoe']);
    const again = await getKey({ User: 'DOMAIN\\\\jdoe', keyExportType: 'public' });
    expect(again.body).toBe(res.body);
    const audit = await s.dataSource.query(`SELECT * FROM audit WHERE operation = 'PGP Key Created'`);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ category: 'Pki', target: 'DOMAIN\\jdoe' });
  });

  it('exports the private key, which decrypts what the public key encrypted, and audits it', async () => {
    const publicKey = await openpgp.readKey({ armoredKey: (await getKey({ User: 'a\\ b', keyExportType: 'public' })).body });
    const res = await getKey({ User: 'a\\ b', keyExportType: 'private' });
    const privateKey = await openpgp.readPrivateKey({ armoredKey: res.body });
    expect(privateKey.getFingerprint()).toBe(publicKey.getFingerprint());
    const encrypted = await openpgp.encrypt({ message: await openpgp.createMessage({ text: 'sealed for a b' }), encryptionKeys: publicKey });
    const { data } = await openpgp.decrypt({ message: await openpgp.readMessage({ armoredMessage: encrypted as string }), decryptionKeys: privateKey });
    expect(data).toBe('sealed for a b');
    const audit = await s.dataSource.query(`SELECT * FROM audit WHERE operation = 'PGP Key Exported'`);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_name: 'admin', target: 'a b' });
    expect(audit[0].description).not.toContain('PRIVATE KEY');
  });

  it('keeps the private key sealed at rest: neither armoured nor binary, no 32-byte run of it in the row', async () => {
    const armoured = (await getKey({ User: 'admin', keyExportType: 'private' })).body;
    const binary = Buffer.from((await openpgp.readPrivateKey({ armoredKey: armoured })).write());
    const rows: { username: string; private_key: Buffer }[] = await s.dataSource.query(`SELECT u.username, k.private_key FROM pgp_keys k JOIN users u ON u.id = k.user_id`);
    const stored = rows.find((r) => r.username === 'admin')!.private_key;
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.toString('latin1')).not.toContain('PGP PRIVATE KEY');
    for (let at = 0; at + 32 <= binary.length; at += 16) expect(stored.includes(binary.subarray(at, at + 32))).toBe(false);
    await expect(openpgp.readPrivateKey({ binaryKey: stored })).rejects.toThrow();
    // Every row, not only this one: none holds an armoured key.
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const row of rows) expect(row.private_key.toString('latin1')).not.toContain('PGP PRIVATE KEY');
  });

  it('accepts an unescaped backslash and defaults to the caller and to public', async () => {
    const unescaped = await getKey({ User: 'DOMAIN\\jdoe' });
    expect((await openpgp.readKey({ armoredKey: unescaped.body })).getUserIDs()).toEqual(['DOMAIN\\jdoe']);
    const own = await getKey({});
    expect((await openpgp.readKey({ armoredKey: own.body })).getUserIDs()).toEqual(['admin']);
    // A JSON null is no user named, as absent is (it was a 500, found by the fuzz suite).
    const nulled = await getKey({ User: null } as never);
    expect(nulled.status).toBe(200);
    expect((await openpgp.readKey({ armoredKey: nulled.body })).getUserIDs()).toEqual(['admin']);
  });

  it('refuses unknown users, unknown export types, and private export without PkiManage', async () => {
    expect(JSON.parse((await getKey({ User: 'nobody' })).body)).toEqual({ name: 'GetPGPKey', result: { status: 'Failed', message: 'User nobody does not exist' } });
    expect(JSON.parse((await getKey({ User: 'admin', keyExportType: 'secret' })).body).result).toEqual({
      status: 'Failed',
      message: 'keyExportType must be one of: public, private',
    });
    const auditor = await createUserWithToken(s, 'pgp-auditor', 'Password Auditor');
    expect(JSON.parse((await getKey({ User: 'admin', keyExportType: 'private' }, auditor.token)).body).result).toEqual({
      status: 'Failed',
      message: 'Your role (Password Auditor) does not allow this operation',
    });
    const pub = await getKey({ User: 'admin', keyExportType: 'public' }, auditor.token);
    expect(pub.body).toContain('BEGIN PGP PUBLIC KEY BLOCK');
  });

  it('exports the private half of another user’s key only for that user or a super administrator, audited (issue 35)', async () => {
    const manager = await createUserWithToken(s, 'pgp-manager', 'Administrator');
    const other = JSON.parse((await getKey({ User: 'admin', keyExportType: 'private' }, manager.token)).body);
    expect(other.result).toEqual({ status: 'Failed', message: "Only admin or a super administrator may export the private half of admin's PGP key" });
    const refused = await s.dataSource.query(`SELECT outcome, description FROM audit WHERE operation = 'PGP Key Exported' AND actor_id = $1`, [manager.id]);
    expect(refused).toEqual([{ outcome: 'Failed', description: expect.stringContaining("the private half of another user's PGP key") }]);
    const own = await getKey({ keyExportType: 'private' }, manager.token);
    expect(own.body).toContain('BEGIN PGP PRIVATE KEY BLOCK');
  });
});
