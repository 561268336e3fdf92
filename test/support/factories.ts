import request from 'supertest';
import { inputData } from './http';

let counter = 0;

/** Creates a resource with one account through the API; returns its ids. */
export async function createResource(
  baseUrl: string,
  token: string,
  details: Record<string, unknown> = {},
): Promise<{ resourceId: number; accountId: number; name: string; accountName: string; password: string }> {
  counter += 1;
  const name = (details.RESOURCENAME as string) ?? `res-${process.pid}-${counter}`;
  const accountName = (details.ACCOUNTNAME as string) ?? 'root';
  const password = (details.PASSWORD as string) ?? `Pw-${counter}-Xy9!long-enough`;
  const res = await request(baseUrl)
    .post('/restapi/json/v1/resources')
    .set('AUTHTOKEN', token)
    .type('form')
    .send({ INPUT_DATA: inputData({ RESOURCETYPE: 'Linux', ...details, RESOURCENAME: name, ACCOUNTNAME: accountName, PASSWORD: password }) });
  if (res.body.operation?.result?.status !== 'Success') {
    throw new Error(`createResource failed: ${JSON.stringify(res.body)}`);
  }
  const list = await request(baseUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', token);
  const resource = list.body.operation.Details.find((r: Record<string, string>) => r['RESOURCE NAME'] === name);
  const accounts = await request(baseUrl).get(`/restapi/json/v1/resources/${resource['RESOURCE ID']}/accounts`).set('AUTHTOKEN', token);
  const account = accounts.body.operation.Details['ACCOUNT LIST'].find((a: Record<string, string>) => a['ACCOUNT NAME'] === accountName);
  return { resourceId: Number(resource['RESOURCE ID']), accountId: Number(account['ACCOUNT ID']), name, accountName, password };
}
