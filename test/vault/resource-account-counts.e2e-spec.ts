import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';

const V1 = '/restapi/json/v1';

/**
 * NOOFACCOUNTS of GET /resources comes from resources.account_count, kept by a trigger on
 * accounts (issue 40): it follows one account added, a list added in one statement, a
 * deletion and the resource's deletion, and always equals counting the accounts.
 */
describe('the account count of a resource', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  const listed = async (name: string) =>
    (await request(s.vaultUrl).get(`${V1}/resources`).set('AUTHTOKEN', s.adminToken)).body.operation.Details.find((r: Record<string, string>) => r['RESOURCE NAME'] === name)?.NOOFACCOUNTS;
  const drift = async () =>
    s.dataSource.query(`SELECT r.name FROM resources r WHERE r.account_count <> (SELECT count(*) FROM accounts a WHERE a.resource_id = r.id)`);

  it('follows accounts added one by one and in a list, and deleted', async () => {
    const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'counted' });
    expect(await listed('counted')).toBe('1');
    const added = await request(s.vaultUrl).post(`${V1}/resources/${r.resourceId}/accounts`).set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: inputData({ ACCOUNTLIST: ['a', 'b', 'c'].map((n) => ({ ACCOUNTNAME: n, PASSWORD: `Counted-Pass-${n}-1` })) }) });
    expect(added.body.operation.result.status).toBe('Success');
    expect(await listed('counted')).toBe('4');
    const [b] = await s.dataSource.query(`SELECT id FROM accounts WHERE resource_id = $1 AND name = 'b'`, [r.resourceId]);
    const deleted = await request(s.vaultUrl).delete(`${V1}/resources/${r.resourceId}/accounts/${b.id}`).set('AUTHTOKEN', s.adminToken);
    expect(deleted.body.operation.result.status).toBe('Success');
    expect(await listed('counted')).toBe('3');
    expect(await drift()).toEqual([]);
  });
});
