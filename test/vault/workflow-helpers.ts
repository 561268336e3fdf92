import request from 'supertest';
import { createUserWithToken, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData, Json } from '../support/http';

// Small factories for the password access workflow tests.

export interface TestUser {
  id: number;
  token: string;
  name: string;
}

let counter = 0;

export async function user(s: TestServices, role = 'Password User', prefix = 'u'): Promise<TestUser> {
  counter += 1;
  const name = `${prefix}-${process.pid}-${counter}`;
  const { id, token } = await createUserWithToken(s, name, role);
  return { id, token, name };
}

/** Shares a resource to a user (as the resources feature's share operation records it). */
export async function share(s: TestServices, resourceId: number, userId: number, accessType = 'view'): Promise<void> {
  await s.dataSource.query('INSERT INTO shares (resource_id, user_id, access_type) VALUES ($1, $2, $3)', [resourceId, userId, accessType]);
}

/** A resource owned by `owner`, under access control with the given settings. */
export async function controlledResource(s: TestServices, owner: TestUser, settings: Json = {}) {
  const resource = await createResource(s.vaultUrl, owner.token);
  const op = await call(s.vaultUrl, 'put', `/restapi/json/v1/resources/${resource.resourceId}/accounts/${resource.accountId}/accesscontrol`, owner.token, settings);
  if (op.result.status !== 'Success') throw new Error(`access control failed: ${JSON.stringify(op)}`);
  return resource;
}

/** Calls a prefix-A operation; returns body.operation. */
export async function call(baseUrl: string, method: 'get' | 'post' | 'put', path: string, token: string, details?: Json): Promise<Json> {
  let req = request(baseUrl)[method](path).set('AUTHTOKEN', token);
  if (details) req = req.type('form').send({ INPUT_DATA: inputData(details) });
  const res = await req;
  if (!res.body.operation) throw new Error(`No envelope (HTTP ${res.status}): ${res.text}`);
  return res.body.operation;
}

/** The workflow operations, by the spec's paths. */
export function workflow(baseUrl: string) {
  const base = '/restapi/json/v1/accounts';
  return {
    request: (u: TestUser, aid: number, details: Json = {}) => call(baseUrl, 'post', `${base}/${aid}/requestpassword`, u.token, details),
    pending: (u: TestUser) => call(baseUrl, 'get', `${base}/passwordaccessrequests`, u.token),
    approve: (u: TestUser, aid: number, requester: number) => call(baseUrl, 'post', `${base}/${aid}/requester/${requester}/approve`, u.token),
    reject: (u: TestUser, aid: number, requester: number) =>
      call(baseUrl, 'post', `${base}/${aid}/requester/${requester}/reject`, u.token, { PASSWDID: String(aid), REQUESTEDID: String(requester) }),
    checkout: (u: TestUser, aid: number, details: Json = {}) => call(baseUrl, 'post', `${base}/${aid}/checkout`, u.token, details),
    checkin: (u: TestUser, aid: number, requester: number) =>
      call(baseUrl, 'post', `${base}/${aid}/requester/${requester}/checkin`, u.token, { PASSWDID: String(aid), REQUESTEDID: String(requester) }),
    password: (u: TestUser, rid: number, aid: number) => call(baseUrl, 'get', `/restapi/json/v1/resources/${rid}/accounts/${aid}/password`, u.token),
  };
}

export async function requestStatus(s: TestServices, accountId: number, requesterId: number): Promise<string | undefined> {
  const [row] = await s.dataSource.query('SELECT status FROM password_requests WHERE account_id = $1 AND requester_id = $2 ORDER BY id DESC LIMIT 1', [
    accountId,
    requesterId,
  ]);
  return row?.status;
}

/** Polls until `check` holds; timer tests never sleep longer than this. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 6000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
