import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { call, PGP_OWNER, PKI_SECRET_PATHS, Presentation, VAULT_KEY } from './pki-secret-paths';

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
