import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';

/**
 * Fail-closed audit (HashiCorp Vault's rule): when the audit row of a password read cannot
 * be written, the password does not leave. Proven by making PostgreSQL refuse that row.
 */
describe('fail-closed audit', () => {
  let s: TestServices;
  let rid: number;
  let aid: number;
  const PASSWORD = 'Never-Unaudited-123!';

  beforeAll(async () => {
    s = await startTestServices();
    ({ resourceId: rid, accountId: aid } = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'fail-closed', PASSWORD }));
    await s.dataSource.query(`CREATE FUNCTION refuse_read_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.operation = 'Password Retrieved' THEN RAISE EXCEPTION 'audit store refuses'; END IF; RETURN NEW; END $$`);
  });
  afterAll(() => s.close());

  const read = () => request(s.vaultUrl).get(`/restapi/json/v1/resources/${rid}/accounts/${aid}/password`).set('AUTHTOKEN', s.adminToken);

  it('reads the password while the audit row can be written', async () => {
    expect((await read()).body.operation.Details.PASSWORD).toBe(PASSWORD);
  });

  it('withholds it when the audit row cannot be written, and leaves no audit row behind', async () => {
    const [{ n: before }] = await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE operation = 'Password Retrieved'`);
    await s.dataSource.query('CREATE TRIGGER refuse_read_audit BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION refuse_read_audit()');
    try {
      const res = await read();
      expect(res.text).not.toContain(PASSWORD);
      expect(res.body.operation.result.status).toBe('Failed');
      expect(res.text).not.toMatch(/audit store refuses/);
    } finally {
      await s.dataSource.query('DROP TRIGGER refuse_read_audit ON audit');
    }
    const [{ n: after }] = await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE operation = 'Password Retrieved'`);
    expect(after).toBe(before);
    expect((await read()).body.operation.Details.PASSWORD).toBe(PASSWORD);
  });
});
