import request from 'supertest';
import { hashToken } from '@app/crypto';
import { createResource } from '../support/factories';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { Json } from '../support/http';
import { createOrgWithAdmin } from './users-orgs';
import { vaultClient } from './vault-client';

const ok = (res: request.Response) => {
  expect(res.body.operation?.result).toMatchObject({ status: 'Success' });
  return res.body.operation;
};
const failed = (res: request.Response, message: string | RegExp) => {
  expect(res.status).toBe(200);
  expect(res.body.operation.result.status).toBe('Failed');
  expect(res.body.operation.result.message).toMatch(message);
};

describe('users and tokens (ops 17, 22, 23, 42-46)', () => {
  let s: TestServices;
  let admin: ReturnType<typeof vaultClient>;
  beforeAll(async () => {
    s = await startTestServices();
    admin = vaultClient(s, s.adminToken);
  });
  afterAll(() => s.close());

  const createApiUser = async (username: string, extra: Json = {}) => {
    const op = ok(await admin.post('/user', { USERNAME: username, ROLE: 'Password Administrator', ISAPIUSER: 'true', ...extra }));
    return { id: Number(op.Details.USERID), token: op.Details.AUTHTOKEN as string };
  };
  const resourcesAs = (token: string) => request(s.vaultUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', token);

  describe('CREATE_USER (op 23)', () => {
    it('creates an API user whose token works once shown and is stored only hashed', async () => {
      const res = await admin.post('/user', {
        USERNAME: 'api-one', FULLNAME: 'API One', EMAIL: 'one@example.com', POLICY: 'Strong', ROLE: 'Password Administrator',
        ISSUPERADMIN: 'false', DEPARTMENT: 'Ops', LOCATION: 'HQ', ISAPIUSER: 'true', HOSTNAME: '127.0.0.1', EXPIRYDATE: 'NeverExpires',
      });
      expect(res.body.operation).toMatchObject({ name: 'CREATE_USER', result: { status: 'Success', message: 'User api-one added successfully' } });
      const token = res.body.operation.Details.AUTHTOKEN;
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      ok(await resourcesAs(token));
      const [user] = await s.dataSource.query('SELECT * FROM users WHERE username = $1', ['api-one']);
      expect(user).toMatchObject({ full_name: 'API One', email: 'one@example.com', department: 'Ops', location: 'HQ', allowed_hosts: '127.0.0.1', expires_on: null, is_api_user: true });
      const tokens = await s.dataSource.query('SELECT token_hash FROM api_tokens WHERE user_id = $1', [user.id]);
      expect(tokens).toEqual([{ token_hash: hashToken(token) }]);
      const audit = await s.dataSource.query(`SELECT * FROM audit WHERE target = 'api-one' ORDER BY id`);
      expect(audit.map((a: Json) => a.operation)).toEqual(expect.arrayContaining(['User Added', 'API Token Created']));
      expect(JSON.stringify(audit)).not.toContain(token);
    });

    it('writes one "User Added" row per creation, naming who created the user', async () => {
      await createApiUser('api-once');
      ok(await admin.post('/user', { USERNAME: 'plain-once', ROLE: 'Password User' }));
      const rows = await s.dataSource.query(`SELECT target, actor_name FROM audit WHERE operation = 'User Added' AND target IN ('api-once', 'plain-once') ORDER BY id`);
      expect(rows).toEqual([
        { target: 'api-once', actor_name: 'admin' },
        { target: 'plain-once', actor_name: 'admin' },
      ]);
    });

    it('creates a user without a token when ISAPIUSER is not true', async () => {
      const op = ok(await admin.post('/user', { USERNAME: 'plain-user', ROLE: 'Password User' }));
      expect(op.Details).toEqual({ USERID: expect.stringMatching(/^\d+$/) });
    });

    it.each([
      [{ ROLE: 'Password Administrator' }, 'USERNAME is required'],
      [{ USERNAME: 'bad name!' }, 'USERNAME may contain letters, digits'],
      [{ USERNAME: 'v1', ROLE: 'Root' }, 'ROLE must be one of: Administrator, Password Administrator, Privileged Administrator, Password Auditor, Password User'],
      [{ USERNAME: 'v2', EMAIL: 'not-an-email' }, 'EMAIL must be an email address'],
      [{ USERNAME: 'v3', EXPIRYDATE: '31-12-2030' }, 'EXPIRYDATE must be a date as yyyy-mm-dd or NeverExpires'],
      [{ USERNAME: 'v4', EXPIRYDATE: '2001-01-01' }, 'EXPIRYDATE must not be in the past'],
      [{ USERNAME: 'v5', HOSTNAME: '10.0.0.0/40' }, 'HOSTNAME: "10.0.0.0/40" is not an IP address, CIDR range or host name'],
      [{ USERNAME: 'v6', ISAPIUSER: 'yes' }, 'ISAPIUSER must be true or false'],
      [{ USERNAME: 'v7', POLICY: 'Nonexistent' }, 'POLICY: no password policy named "Nonexistent"'],
      [{ USERNAME: 'v8', ISSUPERADMIN: 'true', ROLE: 'Password User' }, 'A super administrator must have the Administrator role'],
    ])('refuses %p with a clear message', async (details, message) => {
      failed(await admin.post('/user', details), message);
    });

    it('refuses a duplicate user name, whatever its case', async () => {
      await createApiUser('dup-user');
      failed(await admin.post('/user', { USERNAME: 'DUP-user' }), 'User DUP-user already exists');
    });

    it('binds the token to HOSTNAME and ends access after EXPIRYDATE', async () => {
      const far = await createApiUser('bound-far', { HOSTNAME: '10.20.30.40, 192.168.0.0/16' });
      expect((await resourcesAs(far.token)).body.operation.result.message).toBe('User is not allowed to access from this host');
      const near = await createApiUser('bound-near', { HOSTNAME: '127.0.0.0/8', EXPIRYDATE: '2999-12-31' });
      ok(await resourcesAs(near.token));
      await s.dataSource.query(`UPDATE users SET expires_on = current_date - 1 WHERE id = $1`, [near.id]);
      failed(await resourcesAs(near.token), 'User account has expired');
      await s.dataSource.query(`UPDATE users SET expires_on = current_date WHERE id = $1`, [near.id]);
      ok(await resourcesAs(near.token));
    });

    it('lets only a super administrator create a super administrator', async () => {
      const plain = await createUserWithToken(s, 'plain-admin', 'Administrator');
      failed(await vaultClient(s, plain.token).post('/user', { USERNAME: 'would-be-super', ROLE: 'Administrator', ISSUPERADMIN: 'true' }), 'Only a super administrator can create a super administrator');
      ok(await admin.post('/user', { USERNAME: 'real-super', ROLE: 'Administrator', ISSUPERADMIN: 'true' }));
    });
  });

  describe('prefix B create user (op 17)', () => {
    const postB = (details: Json) =>
      request(s.vaultUrl).post('/api/pki/restapi/user').set('AUTHTOKEN', s.adminToken).query({ INPUT_DATA: JSON.stringify({ operation: { Details: details } }) });

    it('stores the login password with bcrypt and never returns it', async () => {
      const password = 'Login-Pa55word!x';
      const res = await postB({
        USERNAME: 'b-user', FIRSTNAME: 'Bea', LASTNAME: 'User', EMAIL: 'bea@example.com', PASSWORD: password, ROLE: 'Password User',
        ISAPIUSER: 'false', ALLOWEDIPADDRESS: '10.0.0.0/8', ENABLEMOBILEACCESS: 'true', MOBILE_COUNTRYCODE: '+44', MOBILE: '7700 900123',
        ENABLETWOFACTOR: 'true', PRIMARYCONTACT: 'mobile', EXTAUTH1_USERNAME: 'bea-radius',
      });
      expect(res.body).toEqual({ name: 'CreateUser', result: { status: 'Success', message: 'User b-user added successfully' }, Details: { USERID: expect.any(String) } });
      expect(JSON.stringify(res.body)).not.toContain(password);
      const [user] = await s.dataSource.query('SELECT first_name, last_name, full_name, password_hash, allowed_hosts, profile FROM users WHERE username = $1', ['b-user']);
      expect(user).toMatchObject({ first_name: 'Bea', last_name: 'User', full_name: 'Bea User', allowed_hosts: '10.0.0.0/8' });
      expect(user.password_hash).toMatch(/^\$2[aby]\$12\$/);
      expect(user.password_hash).not.toContain(password);
      expect(user.profile).toMatchObject({ MOBILE: '7700 900123', ENABLETWOFACTOR: 'true', PRIMARYCONTACT: 'mobile', EXTAUTH1_USERNAME: 'bea-radius' });
      const audit = await s.dataSource.query(`SELECT * FROM audit WHERE target = 'b-user'`);
      expect(JSON.stringify(audit)).not.toContain(password);
    });

    it('returns an API user token in Details.AUTHTOKEN', async () => {
      const res = await postB({ USERNAME: 'b-api', ROLE: 'Password Auditor', ISAPIUSER: 'true' });
      expect(res.body.Details.AUTHTOKEN).toMatch(/^[0-9a-f]{64}$/);
      ok(await resourcesAs(res.body.Details.AUTHTOKEN));
    });

    it.each([
      [{ USERNAME: 'b1', ISAPIUSER: 'false' }, 'PASSWORD is required for a user who is not an API user'],
      [{ USERNAME: 'b2', PASSWORD: 'short' }, 'PASSWORD does not meet the password policy Strong'],
      [{ USERNAME: 'b3', ISAPIUSER: 'true', ALLOWEDIPADDRESS: 'not a host!' }, 'ALLOWEDIPADDRESS: "host!" is not an IP address'],
      [{ USERNAME: 'b4', ISAPIUSER: 'true', PRIMARYCONTACT: 'fax' }, 'PRIMARYCONTACT must be one of: landline, mobile'],
      [{ USERNAME: 'b5', ISAPIUSER: 'true', PRIMARYCONTACT: 'mobile' }, 'PRIMARYCONTACT mobile needs MOBILE'],
      [{ USERNAME: 'b6', ISAPIUSER: 'true', ENABLETWOFACTOR: 'true' }, 'ENABLETWOFACTOR needs PRIMARYCONTACT'],
      [{ USERNAME: 'b7', ISAPIUSER: 'true', MOBILE: 'call me' }, 'MOBILE must be a telephone number'],
    ])('refuses %p', async (details, message) => {
      const res = await postB(details);
      expect(res.body.result.status).toBe('Failed');
      expect(res.body.result.message).toMatch(message);
    });
  });

  describe('user-name operations', () => {
    it('answers get_USERID', async () => {
      const u = await createApiUser('lookup-me');
      const res = await admin.get('/user/getUserId').query({ USERNAME: 'LOOKUP-me' });
      expect(res.body.operation).toMatchObject({ name: 'get_USERID', Details: { USERID: String(u.id) } });
      failed(await admin.get('/user/getUserId').query({ USERNAME: 'nobody' }), 'No user named nobody found');
    });

    it('locks and unlocks: the token is refused at once, then accepted again', async () => {
      const u = await createApiUser('lockable');
      const res = await admin.put('/user/lock').query({ USERNAME: 'lockable' });
      expect(res.body.operation).toMatchObject({ name: 'LOCK USER', result: { status: 'Success', message: 'User lockable locked successfully' } });
      expect((await resourcesAs(u.token)).body.operation).toEqual({
        name: 'Authentication',
        result: { status: 'Failed', message: 'User account is locked. Contact your administrator.' },
      });
      expect((await admin.put('/user/unlock').query({ USERNAME: 'lockable' })).body.operation.name).toBe('UNLOCK USER');
      ok(await resourcesAs(u.token));
      failed(await admin.put('/user/lock').query({ USERNAME: 'admin' }), 'You cannot lock your own user account');
    });

    it('deletes by name and by id; the token stops working at once', async () => {
      const a = await createApiUser('delete-by-name');
      const res = await admin.delete('/user').query({ USERNAME: 'delete-by-name' });
      expect(res.body.operation).toMatchObject({ name: 'DELETE USER', result: { status: 'Success', message: 'User delete-by-name deleted successfully' } });
      failed(await resourcesAs(a.token), 'API key received is not associated to any user');
      const b = await createApiUser('delete-by-id');
      expect((await admin.delete(`/user/${b.id}`)).body.operation.result.message).toBe('User delete-by-id deleted successfully');
      failed(await resourcesAs(b.token), 'API key received is not associated to any user');
      failed(await admin.delete(`/user/${b.id}`), 'No such user found');
      failed(await admin.delete('/user/abc'), 'Invalid user id');
    });

    it('refuses to delete a user who still owns resources', async () => {
      const owner = await createApiUser('owner-user');
      await createResource(s.vaultUrl, owner.token, { RESOURCENAME: 'owned-by-owner-user' });
      failed(await admin.delete('/user').query({ USERNAME: 'owner-user' }), 'User owner-user owns 1 resource(s); transfer or delete them first');
    });

    it('adds a user to a user group, creating the group when missing', async () => {
      await createApiUser('grouped');
      const res = await admin.post('/user/addUserToUserGroup').query({ USERNAME: 'grouped', USERGROUPNAME: 'DBAs' });
      expect(res.body.operation).toMatchObject({ name: 'ADD USER TO USERGROUP', result: { status: 'Success', message: 'User grouped added to the user group DBAs successfully' } });
      const again = await admin.post('/user/addUserToUserGroup').query({ USERNAME: 'grouped', USERGROUPNAME: 'dbas' });
      expect(again.body.operation.result.message).toBe('User grouped is already a member of the user group DBAs');
      const rows = await s.dataSource.query(`SELECT g.name FROM user_groups g JOIN user_group_members m ON m.group_id = g.id JOIN users u ON u.id = m.user_id WHERE u.username = 'grouped'`);
      expect(rows).toEqual([{ name: 'DBAs' }]);
      failed(await admin.post('/user/addUserToUserGroup').query({ USERNAME: 'grouped' }), 'USERGROUPNAME is required');
    });
  });

  describe('organisations', () => {
    let other: { orgId: number; token: string };
    beforeAll(async () => {
      other = await createOrgWithAdmin(s, 'Acme');
      await createApiUser('default-only');
    });

    it('keeps users of one organisation invisible to another', async () => {
      const acme = vaultClient(s, other.token);
      failed(await acme.get('/user/getUserId').query({ USERNAME: 'default-only' }), 'No user named default-only found');
      failed(await acme.put('/user/lock').query({ USERNAME: 'default-only' }), 'No user named default-only found');
      const [u] = await s.dataSource.query(`SELECT id FROM users WHERE username = 'default-only'`);
      failed(await acme.delete(`/user/${u.id}`), 'No such user found');
      // Naming another organisation in orgName is answered like a missing one.
      failed(await acme.get('/user/getUserId').set('orgName', 'Default').query({ USERNAME: 'default-only' }), 'No organisation named Default');
    });

    it('creates a same-named user in each organisation', async () => {
      ok(await vaultClient(s, other.token).post('/user', { USERNAME: 'default-only', ISAPIUSER: 'true' }));
      const acmeLookup = await vaultClient(s, other.token).get('/user/getUserId').query({ USERNAME: 'default-only' });
      const defaultLookup = await admin.get('/user/getUserId').query({ USERNAME: 'default-only' });
      expect(acmeLookup.body.operation.Details.USERID).not.toBe(defaultLookup.body.operation.Details.USERID);
    });

    it('lets the provider super administrator pick an organisation by orgName', async () => {
      await vaultClient(s, other.token).post('/user', { USERNAME: 'acme-only', ISAPIUSER: 'true' });
      failed(await admin.get('/user/getUserId').query({ USERNAME: 'acme-only' }), 'No user named acme-only found');
      const res = await admin.get('/user/getUserId').set('orgName', 'acme').query({ USERNAME: 'acme-only' });
      expect(res.body.operation.result.status).toBe('Success');
      ok(await admin.put('/user/lock').set('orgName', 'Acme').query({ USERNAME: 'acme-only' }));
      const audit = await s.dataSource.query(`SELECT org_id, actor_name FROM audit WHERE operation = 'User Locked' AND target = 'acme-only'`);
      expect(audit).toEqual([{ org_id: other.orgId, actor_name: 'admin' }]);
      failed(await admin.get('/user/getUserId').set('orgName', 'Nowhere').query({ USERNAME: 'x' }), 'No organisation named Nowhere');
    });
  });
});
