import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData, Json } from '../support/http';
import { shareToUser } from '../support/sharing';
import { ResourcesService } from '../../apps/vault/src/resources/resources.service';

const V1 = '/restapi/json/v1';

/**
 * GET /resources without LIMIT or search is written from the database's bytes (RenderedList):
 * every entry, header and total must be what the entries' own path answers (a LIMIT takes it),
 * whatever the text holds, for the administrator and for a user seeing one account of a resource.
 */
describe('GET /resources rendered from the database', () => {
  let s: TestServices;
  let rendered: jest.SpyInstance;
  beforeAll(async () => {
    s = await startTestServices();
    rendered = jest.spyOn(ResourcesService.prototype as unknown as { renderedList: () => unknown }, 'renderedList');
  });
  afterAll(async () => {
    rendered.mockRestore();
    await s.close();
  });

  const list = (token: string, details?: Json) => {
    const call = request(s.vaultUrl).get(`${V1}/resources`).set('AUTHTOKEN', token);
    return details ? call.query({ INPUT_DATA: inputData(details) }) : call;
  };
  /** The entries' own path: a LIMIT above the count lists everything, through objects and JSON.stringify. */
  const byEntries = async (token: string, STARTINDEX = 0) => (await list(token, { STARTINDEX, LIMIT: 100000 })).body.operation;

  it('writes the entries, the total and the headers the entries\' path writes, whatever the text holds', async () => {
    const odd = ['quote " and \\ backslash', 'unicode é ß 😀 \u2028 </script>', 'plain-b', 'plain-a'];
    for (const name of odd) await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: name, RESOURCEDESCRIPTION: `about ${name}` });
    // Stored text with control characters (the API may refuse them; the list must still write them).
    await s.dataSource.query(`UPDATE resources SET description = $1 WHERE name = 'plain-b'`, ['tab\there\nnew line\u0001\u001f\u007f']);

    rendered.mockClear();
    const res = await list(s.adminToken);
    expect(rendered.mock.results).toHaveLength(1);
    await expect(rendered.mock.results[0].value).resolves.toMatchObject({ totalRows: 4 });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toContain('no-store');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    const entries = await byEntries(s.adminToken);
    expect(res.text).toBe(JSON.stringify({ operation: entries }));
    expect(entries.Details.map((r: Json) => r['RESOURCE NAME'])).toEqual(['plain-a', 'plain-b', 'quote " and \\ backslash', 'unicode é ß 😀 \u2028 </script>']);
    expect(entries.Details[1]['RESOURCE DESCRIPTION']).toBe('tab\there\nnew line\u0001\u001f\u007f');
  });

  it('starts at STARTINDEX, counts the rows before it, and past the end answers the total alone', async () => {
    const all = (await list(s.adminToken)).body.operation;
    const rest = (await list(s.adminToken, { STARTINDEX: 2 })).body.operation;
    expect(rest).toEqual({ ...all, Details: all.Details.slice(2), totalRows: all.totalRows });
    expect(rest).toEqual(await byEntries(s.adminToken, 2));
    rendered.mockClear();
    const past = (await list(s.adminToken, { STARTINDEX: 50 })).body.operation;
    await expect(rendered.mock.results[0].value).resolves.toBeUndefined();
    expect(past).toEqual({ name: 'GET RESOURCES', result: { status: 'Success', message: 'Resources fetched successfully' }, totalRows: all.totalRows });
  });

  it('counts only the shared account for a user who sees one account of a resource, and nothing of the others', async () => {
    const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'two-accounts', ACCOUNTNAME: 'shown' });
    await request(s.vaultUrl).post(`${V1}/resources/${r.resourceId}/accounts`).set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: inputData({ ACCOUNTLIST: [{ ACCOUNTNAME: 'hidden', PASSWORD: 'Hidden-Pass-123!' }] }) });
    const user = await createUserWithToken(s, 'lister', 'Password User');
    await shareToUser(s.dataSource, r.resourceId, user.id, 'view', r.accountId);
    const res = await list(user.token);
    expect(res.body.operation).toEqual({
      name: 'GET RESOURCES',
      result: { status: 'Success', message: 'Resources fetched successfully' },
      Details: [{ 'RESOURCE ID': String(r.resourceId), 'RESOURCE NAME': 'two-accounts', 'RESOURCE TYPE': 'Linux', 'RESOURCE DESCRIPTION': '', NOOFACCOUNTS: '1' }],
      totalRows: 1,
    });
    expect(res.text).toBe(JSON.stringify({ operation: await byEntries(user.token) }));
    // A user who sees nothing: no Details, totalRows 0 (the entries' path answers it).
    const none = await createUserWithToken(s, 'nobody', 'Password User');
    expect((await list(none.token)).body.operation).toEqual({ name: 'GET RESOURCES', result: expect.anything(), totalRows: 0 });
  });
});
