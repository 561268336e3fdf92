import request from 'supertest';
import { PasswordReadLeanRoute } from '../../apps/vault/src/passwords/password-read.lean-route';
import { createResource } from '../support/factories';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';

// GET .../password has two entries: the lean route for its plain form, and the controller
// for every other form (doubled slashes, a body...). Both must answer exactly alike.
describe('password read: lean route and controller answer alike', () => {
  let s: TestServices;
  let r: Awaited<ReturnType<typeof createResource>>;
  let served: jest.SpyInstance;
  beforeAll(async () => {
    s = await startTestServices();
    r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Lean-And-Same-1' });
    served = jest.spyOn(PasswordReadLeanRoute.prototype as unknown as { serve(): Promise<void> }, 'serve');
  });
  afterAll(() => s.close());

  const lean = (path: string) => request(s.vaultUrl).get(path);
  const viaController = (path: string) => request(s.vaultUrl).get(path.replace('/resources/', '//resources/'));

  async function both(path: string, token?: string, query?: Record<string, string>) {
    served.mockClear();
    const a = lean(path);
    const b = viaController(path);
    if (token) [a, b].forEach((x) => x.set('AUTHTOKEN', token));
    if (query) [a, b].forEach((x) => x.query(query));
    const [ra, rb] = [await a, await b];
    expect(served).toHaveBeenCalledTimes(1);
    expect(rb.status).toBe(ra.status);
    expect(rb.body).toEqual(ra.body);
    expect(ra.headers['cache-control']).toBe('no-store');
    expect(ra.headers['etag']).toBeUndefined();
    return ra;
  }

  it('a password', async () => {
    const res = await both(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`, s.adminToken, {
      INPUT_DATA: inputData({ REASON: 'deploy' }),
    });
    expect(res.body.operation.Details.PASSWORD).toBe('Lean-And-Same-1');
    const audit = await s.dataSource.query(`SELECT reason FROM audit WHERE account_id = $1 AND operation = 'Password Retrieved'`, [r.accountId]);
    expect(audit).toEqual([{ reason: 'deploy' }, { reason: 'deploy' }]);
  });

  it('authentication failures, a token in the query, a bound user', async () => {
    const path = `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    expect((await both(path)).body.operation.name).toBe('Authentication');
    expect((await both(path, 'f'.repeat(64))).body.operation.result.status).toBe('Failed');
    expect((await both(path, undefined, { AUTHTOKEN: s.adminToken })).body.operation.Details.PASSWORD).toBe('Lean-And-Same-1');
    const bound = await createUserWithToken(s, 'lean-bound', 'Administrator', { allowedHosts: '10.0.0.1', superAdmin: true });
    expect((await both(path, bound.token)).body.operation.result.message).toBe('User is not allowed to access from this host');
  });

  it('unknown, invisible and malformed accounts', async () => {
    const other = await createUserWithToken(s, 'lean-other', 'Password Administrator');
    const path = `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    expect((await both(path, other.token)).body.operation.result).toEqual({ status: 'Failed', message: 'No such account found' });
    expect((await both(`/restapi/json/v1/resources/abc/accounts/1/password`, s.adminToken)).body.operation.result.message).toBe('Invalid resource id: abc');
    const bad = await both(path, s.adminToken, { INPUT_DATA: '{operation:' });
    expect(bad.body.operation).toMatchObject({ name: 'GET PASSWORD', result: { status: 'Failed' } });
  });

  it('leaves every other form to the controller', async () => {
    served.mockClear();
    const res = await request(s.vaultUrl)
      .get(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password/`)
      .set('AUTHTOKEN', s.adminToken)
      .set('Content-Type', 'text/json')
      .send(`INPUT_DATA=${encodeURIComponent(inputData({ REASON: 'body' }))}`);
    expect(res.body.operation.Details.PASSWORD).toBe('Lean-And-Same-1');
    expect(served).not.toHaveBeenCalled();
  });
});
