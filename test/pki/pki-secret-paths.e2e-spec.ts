import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { API, binary } from './cert-e2e-helpers';

type Presentation = 'pki' | 'vault';

/** One route that releases a pki secret; every one goes through PkiSecretGate. */
interface SecretPath {
  route: string;
  method: 'get' | 'post';
  presentation: Presentation;
  /** INPUT_DATA naming the object that `setup` made in the default organisation. */
  details: Record<string, string>;
  /** Makes the object (as the default organisation's administrator); once per object name. */
  setup: (s: TestServices) => Promise<void>;
  /** The audit operation of this secret (grant and refusal). */
  operation: string;
  /** The released body carries the secret. */
  released: (body: Buffer) => boolean;
}

const SSH_KEY = 'gate-ssh-key';
const SSH_PASSPHRASE = 'Ssh-Pass-Phrase-1';
const CERT = 'gate-cert.example.test';
const CERT_PASSWORD = 'Cert-Key-Pass-1';
const VAULT_KEY = 'gate-vault-key';
const VAULT_CONTENT = 'vault key content that only a key manager may take away';
const PGP_OWNER = 'pgp-owner';

const call = (base: string, method: 'get' | 'post', op: string, token: string, details: Record<string, unknown>) =>
  request(base)[method](`${API}/${op}`).set('AUTHTOKEN', token).query({ INPUT_DATA: inputData(details) }).buffer(true).parse(binary);

const once = (make: (s: TestServices) => Promise<void>) => {
  let made: Promise<void> | undefined;
  return (s: TestServices) => (made ??= make(s));
};

const sshKey = once(async (s) => {
  const res = await call(s.pkiUrl, 'post', 'createsshkey', s.adminToken, { keyName: SSH_KEY, keyType: 'ed25519', passPhrase: SSH_PASSPHRASE });
  expect(JSON.parse(res.body.toString()).result.status).toBe('Success');
});
const certificate = once(async (s) => {
  const res = await call(s.pkiUrl, 'post', 'createCertificate', s.adminToken, { CNAME: CERT, PASSWORD: CERT_PASSWORD });
  expect(JSON.parse(res.body.toString()).result.status).toBe('Success');
});
const vaultKey = once(async (s) => {
  const res = await request(s.pkiUrl).post(`${API}/addKeyStoreKey`).set('AUTHTOKEN', s.adminToken)
    .field('INPUT_DATA', inputData({ keyName: VAULT_KEY })).attach('File', Buffer.from(VAULT_CONTENT), 'gate.key');
  expect(res.body.result.Status).toBe('Success');
});
const pgpOwner = once(async (s) => {
  await createUserWithToken(s, PGP_OWNER, 'Password User');
});
const text = (needle: string) => (body: Buffer) => body.toString('latin1').includes(needle);
const nonEmptyFile = (body: Buffer) => body.length > 100 && !body.toString('latin1').includes('"status":"Failed"');

/** Every route that releases a pki secret, on each presentation that has it. */
export const PKI_SECRET_PATHS: SecretPath[] = [
  ...(['pki', 'vault'] as const).flatMap((presentation): SecretPath[] => [
    { route: 'exportSSHKey', method: 'post', presentation, details: { keyName: SSH_KEY, keyExportType: 'private' }, setup: sshKey, operation: 'SSH Key Exported', released: text('PRIVATE KEY') },
    { route: 'getCertificate', method: 'get', presentation, details: { common_name: CERT, fileType: 'KEY' }, setup: certificate, operation: 'Certificate Exported', released: text('ENCRYPTED PRIVATE KEY') },
    { route: 'getCertificate', method: 'get', presentation, details: { common_name: CERT, fileType: 'PKCS' }, setup: certificate, operation: 'Certificate Exported', released: nonEmptyFile },
    { route: 'getCertificate', method: 'get', presentation, details: { common_name: CERT, fileType: 'JKS' }, setup: certificate, operation: 'Certificate Exported', released: nonEmptyFile },
    { route: 'getCertificateKeyStore', method: 'get', presentation, details: { common_name: CERT }, setup: certificate, operation: 'Certificate Exported', released: nonEmptyFile },
    { route: 'getCertificatePassphrase', method: 'get', presentation, details: { common_name: CERT }, setup: certificate, operation: 'Certificate Passphrase Retrieved', released: text(CERT_PASSWORD) },
  ]),
  { route: 'getSSHKeyPassphrase', method: 'get', presentation: 'pki', details: { keyName: SSH_KEY }, setup: sshKey, operation: 'SSH Key Passphrase Retrieved', released: text(SSH_PASSPHRASE) },
  { route: 'exportKeyStoreKey', method: 'post', presentation: 'pki', details: { keyName: VAULT_KEY }, setup: vaultKey, operation: 'Key Vault Key Exported', released: text(VAULT_CONTENT) },
  { route: 'getPGPKey', method: 'get', presentation: 'pki', details: { User: PGP_OWNER, keyExportType: 'private' }, setup: pgpOwner, operation: 'PGP Key Exported', released: text('PRIVATE KEY BLOCK') },
];

/**
 * Issue 11: each pki secret path is decided by PkiSecretGate, and the decision is audited
 * whatever it is: granted to a key manager of the object's organisation; refused to another
 * organisation's administrator (who cannot even tell it exists) and to a role without
 * pki.manage (a Password Auditor).
 */
describe('pki secret paths go through one gate (table)', () => {
  let s: TestServices;
  let auditor: { id: number; token: string };
  let other: { adminId: number; token: string; orgId: number };
  let adminId: number;

  beforeAll(async () => {
    s = await startTestServices();
    auditor = await createUserWithToken(s, 'gate-auditor', 'Password Auditor');
    other = await createOrgWithAdmin(s, 'Other Org');
    [{ id: adminId }] = await s.dataSource.query(`SELECT id FROM users WHERE username = 'admin' AND org_id = 1`);
  });
  afterAll(() => s?.close());

  const base = (p: Presentation) => (p === 'pki' ? s.pkiUrl : s.vaultUrl);
  const lastAuditId = async () => (await s.dataSource.query('SELECT coalesce(max(id), 0)::text AS id FROM audit'))[0].id;
  // Rows of the secret's operation (a first PGP export also records the key pair's creation).
  const auditSince = (id: string, actorId: number, operation: string) =>
    s.dataSource.query('SELECT org_id, operation, outcome, description FROM audit WHERE id > $1 AND actor_id = $2 AND operation = $3 ORDER BY id', [
      id,
      actorId,
      operation,
    ]);

  describe.each(PKI_SECRET_PATHS.map((p) => [`${p.presentation} ${p.method.toUpperCase()} ${p.route} ${JSON.stringify(p.details)}`, p] as const))(
    '%s',
    (_, path) => {
      beforeAll(() => path.setup(s));

      it('is released to a key manager of its organisation, and the grant is audited', async () => {
        const since = await lastAuditId();
        const res = await call(base(path.presentation), path.method, path.route, s.adminToken, path.details);
        expect(path.released(res.body)).toBe(true);
        expect(await auditSince(since, adminId, path.operation)).toEqual([
          { org_id: 1, operation: path.operation, outcome: 'Success', description: expect.stringMatching(/^Released: /) },
        ]);
      });

      it.each([
        ['another organisation’s administrator', () => other, 'not found in the caller', /does not exist|was found/],
        ['a role without pki.manage (Password Auditor)', () => ({ token: auditor.token, adminId: auditor.id, orgId: 1 }), 'does not hold pki.manage', /does not allow this operation/],
      ])('is refused to %s, and the refusal is audited', async (_who, caller, why, message) => {
        const { token, adminId: actorId, orgId } = caller();
        const since = await lastAuditId();
        const res = await call(base(path.presentation), path.method, path.route, token, path.details);
        expect(path.released(res.body)).toBe(false);
        const body = JSON.parse(res.body.toString());
        expect((body.operation ?? body).result.status).toBe('Failed');
        expect((body.operation ?? body).result.message).toMatch(message);
        expect(await auditSince(since, actorId, path.operation)).toEqual([
          { org_id: orgId, operation: path.operation, outcome: 'Failed', description: expect.stringContaining(why) },
        ]);
      });
    },
  );

  it('a refusal is audited even though the refused request’s transaction rolls back', async () => {
    // The gate runs inside the export's transaction; the refusal row is on its own connection.
    const since = await lastAuditId();
    await call(s.pkiUrl, 'post', 'exportKeyStoreKey', auditor.token, { keyName: VAULT_KEY });
    const rows = await auditSince(since, auditor.id, 'Key Vault Key Exported');
    expect(rows.map((r: { outcome: string }) => r.outcome)).toEqual(['Failed']);
  });

  it('the other organisation’s refused caller did not cause a PGP key to be made', async () => {
    const [owner] = await s.dataSource.query(`SELECT id FROM users WHERE username = $1`, [PGP_OWNER]);
    const keys = await s.dataSource.query('SELECT user_id FROM pgp_keys WHERE user_id = $1', [owner.id]);
    // Made once, by the administrator's granted export.
    expect(keys).toHaveLength(1);
  });
});
