import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { rawRequest } from '../support/raw-http';

/**
 * Input that cannot be stored is refused at the edge with a Failed message naming what is
 * wrong, never reaching PostgreSQL and never a 500 (regressions found by fuzzing, test/fuzz).
 */
describe('input refused at the edge', () => {
  let s: TestServices;
  let rid: number;
  let aid: number;
  beforeAll(async () => {
    s = await startTestServices();
    await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'edge-res', ACCOUNTNAME: 'root' });
    [{ rid, aid }] = await s.dataSource.query(
      `SELECT r.id AS rid, a.id AS aid FROM resources r JOIN accounts a ON a.resource_id = r.id WHERE r.name = 'edge-res'`,
    );
  });
  afterAll(() => s.close());

  const form = (details: Record<string, unknown>) => `INPUT_DATA=${encodeURIComponent(inputData(details))}`;
  const call = (base: 'vault' | 'pki', method: string, path: string, body?: string) =>
    rawRequest(base === 'vault' ? s.vaultUrl : s.pkiUrl, {
      method,
      path,
      body,
      headers: { AUTHTOKEN: s.adminToken, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    });
  const resultOf = (json: any) => json.operation?.result ?? json.result;
  const sshKeys = async () => Number((await s.dataSource.query(`SELECT count(*) AS n FROM ssh_keys`))[0].n);

  it('a NUL in a path parameter names the parameter', async () => {
    const res = await call('vault', 'GET', '/restapi/json/v1/resources/resourcename/%00');
    expect(res.status).toBe(200);
    expect(res.json.operation).toEqual({ name: 'GET_RESOURCEID', result: { status: 'Failed', message: 'Invalid resource name: contains a NUL character' } });
  });

  it('malformed percent-encoding in a path parameter names the parameter, on the hot read path too', async () => {
    const read = await call('vault', 'GET', `/restapi/json/v1/resources/${rid}/accounts/%uFFFF/password`);
    expect(read.status).toBe(200);
    expect(read.json.operation).toEqual({ name: 'GET PASSWORD', result: { status: 'Failed', message: 'Invalid account id: malformed percent-encoding' } });
    const change = await call('vault', 'PUT', `/restapi/json/v1/resources/${rid}/accounts/%C3%28/password`, form({ NEWPASSWORD: 'N3w-Pass-123!', RESETTYPE: 'LOCAL' }));
    expect(resultOf(change.json)).toEqual({ status: 'Failed', message: 'Invalid account id: malformed percent-encoding' });
    const token = await rawRequest(s.pkiUrl, { method: 'GET', path: '/api/pki/restapi/getAllSSHKeys/AUTHTOKEN=%E0%A4%A' });
    expect(token.status).toBe(200);
    expect(token.json.name).toBe('Authentication');
  });

  it('a NUL in an INPUT_DATA field or a form field names the field and writes nothing', async () => {
    const before = await sshKeys();
    const json = await call('pki', 'POST', '/api/pki/restapi/createsshkey', form({ keyName: 'a\u0000b', keyType: 'ed25519' }));
    expect(json.status).toBe(200);
    expect(json.json.result).toEqual({ status: 'Failed', message: 'keyName contains a NUL character' });
    const field = await call('pki', 'POST', '/api/pki/restapi/createsshkey', 'keyName=a%00b&keyType=ed25519');
    expect(field.json.result).toEqual({ status: 'Failed', message: 'keyName contains a NUL character' });
    const reason = await call('vault', 'GET', `/restapi/json/v1/resources/${rid}/accounts/${aid}/password?${form({ REASON: 'x\u0000' })}`);
    expect(reason.json.operation.result).toEqual({ status: 'Failed', message: 'REASON contains a NUL character' });
    expect(await sshKeys()).toBe(before);
  });

  it('an object with a constructor or __proto__ key where text is expected is refused by name', async () => {
    const ctor = await call('pki', 'POST', '/api/pki/restapi/createsshkey', form({ keyName: { constructor: 1 }, keyType: 'ed25519' }));
    expect(ctor.status).toBe(200);
    expect(ctor.json.result).toEqual({ status: 'Failed', message: 'keyName must not contain the key constructor' });
    const proto = await call('vault', 'PUT', `/restapi/json/v1/resources/${rid}/accounts/${aid}/password`, `INPUT_DATA=${encodeURIComponent('{"operation":{"Details":{"NEWPASSWORD":{"__proto__":{"x":1}},"RESETTYPE":"LOCAL"}}}')}`);
    expect(proto.json.operation.result).toEqual({ status: 'Failed', message: 'NEWPASSWORD must not contain the key __proto__' });
    const plain = await call('pki', 'POST', '/api/pki/restapi/createsshkey', form({ keyName: { a: 1 }, keyType: 'ed25519' }));
    expect(plain.json.result).toEqual({ status: 'Failed', message: 'keyName must be text' });
  });

  it('an id beyond the integer column is refused, not passed to PostgreSQL', async () => {
    const crl = await call('pki', 'GET', '/crl/99999999999999999999.crl');
    expect(crl.status).toBe(200);
    expect(crl.json.result).toEqual({ status: 'Failed', message: 'No certificate authority 99999999999999999999' });
    const sign = await call('pki', 'POST', '/api/pki/restapi/signCSR', form({ CSR_ID: '99999999999999999999', CA_NAME: 'x' }));
    expect(sign.json.result).toEqual({ status: 'Failed', message: 'CSR_ID must be at most 2147483647' });
  });

  it('a subject value starting with # is stored as text, not read as DER (found by the fuzz campaign)', async () => {
    const res = await call('pki', 'POST', '/api/pki/restapi/createCSR', form({ CNAME: 'hash.example.test', ORG: '#a', ALG: 'EC', LEN: '256' }));
    expect(res.status).toBe(200);
    expect(res.json.result.status).toBe('Success');
    const rows = await s.dataSource.query(`SELECT id FROM csrs WHERE common_name = 'hash.example.test'`);
    expect(rows).toHaveLength(1);
  });

  it('a name every plain object has ("constructor") is not a key type: refused with the allowed list, not a 500 (found by the fuzz campaign)', async () => {
    const before = await sshKeys();
    const key = await call('pki', 'POST', '/api/pki/restapi/createsshkey', form({ keyName: 'ctor-key', keyType: 'constructor' }));
    expect([key.status, key.json.result.status]).toEqual([200, 'Failed']);
    expect(key.json.result.message).toMatch(/^Invalid key type\/length\. Allowed: ssh-rsa/);
    expect(await sshKeys()).toBe(before);
  });
});
