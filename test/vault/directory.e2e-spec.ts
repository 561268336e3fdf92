import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData, Json } from '../support/http';
import { SambaFixture, startSamba } from '../support/samba';
import { totpCode } from '../../apps/vault/src/console/totp';
import { createUserWithToken } from '../support/app';
import { DirectoryScheduler } from '../../apps/vault/src/directory/directory-scheduler';
import { loadConfig } from '@app/config';
import { COMMANDS } from '../../scripts/admin/commands';
import { openAdminContext } from '../../scripts/admin/context';
import { parseArgs } from '../../scripts/admin/args';

const V1 = '/restapi/json/v1';
const PASSWORDS = { dana: 'Dana-Directory-Pass-1', eric: 'Eric-Directory-Pass-1', frank: 'Frank-Directory-Pass-1', admin: 'Fake-Admin-Pass-1' };

/**
 * Issue 37, sign-in with the directory, against a real Samba AD DC: configured by a super
 * administrator through a Windows Domain resource; users and groups imported with the role
 * their groups map to; a person signs in to the console with their directory password (then
 * TOTP where required) and makes their API token; a directory account named like a local user
 * is never linked to it; a disabled account cannot sign in and is locked at the next
 * synchronisation; joins, leaves, renames and removals follow, audited as the system.
 */
describe('sign-in with Active Directory, import and synchronisation (Samba AD DC)', () => {
  let s: TestServices;
  let dc: SambaFixture;
  let staff: string;

  const call = async (method: 'get' | 'post' | 'put', path: string, details?: Json, token = s.adminToken): Promise<Json> => {
    let req = request(s.vaultUrl)[method](`${V1}${path}`).set('AUTHTOKEN', token);
    if (details) req = req.type('form').send({ INPUT_DATA: inputData(details) });
    return (await req).body.operation;
  };
  const signIn = (username: string, password: string) =>
    request(s.vaultUrl).post('/console/sign-in').set('Origin', s.vaultUrl).type('form').send({ username, password });
  const cookieOf = (res: request.Response) => String(res.headers['set-cookie']?.[0] ?? '').split(';')[0];
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const userRow = async (name: string) => (await s.dataSource.query('SELECT id, username, role, locked, email, full_name, password_hash FROM users WHERE username_key = lower($1)', [name]))[0];
  const groupMembers = async (group: string) =>
    (await s.dataSource.query('SELECT u.username FROM user_group_members m JOIN user_groups g ON g.id = m.group_id JOIN users u ON u.id = m.user_id WHERE g.name = $1 ORDER BY 1', [group])).map(
      (r: { username: string }) => r.username,
    );
  const sync = async () => {
    const res = await call('post', '/directory/sync', {});
    expect(res.result.status).toBe('Success');
    return res.Details;
  };

  beforeAll(async () => {
    [s, dc] = await Promise.all([startTestServices({ VERIFY_INTERVAL_MS: '0' }), startSamba()]);
    staff = await dc.createOu('Staff');
    await dc.createUser('dana', PASSWORDS.dana, { ou: staff, mail: 'dana@lab.test', displayName: 'Dana Scully' });
    await dc.createUser('eric', PASSWORDS.eric, { ou: staff, mail: 'eric@lab.test', displayName: 'Eric Ops' });
    await dc.createUser('admin', PASSWORDS.admin, { ou: staff });
    await dc.createGroup('Vault Admins', staff);
    await dc.createGroup('Operators', staff);
    await dc.addMember('Vault Admins', 'dana');
    await dc.addMember('Operators', 'eric');
    const { resourceId } = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'lab.test', RESOURCETYPE: 'Windows Domain', DNSNAME: dc.host, ACCOUNTNAME: dc.admin.username, PASSWORD: dc.admin.password });
    const configured = await call('put', `/resources/${resourceId}/remotepasswordreset`, { ACCOUNTNAME: dc.admin.username, DNSNAME: dc.host, CACERT: dc.certPem, BASEDN: dc.baseDn });
    expect(configured.result.status).toBe('Success');
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await dc?.stop();
  });

  it('is configured by a super administrator only, after a test bind and search; bad settings are Failed naming the field', async () => {
    const other = await createUserWithToken(s, 'plain-admin', 'Administrator');
    expect((await call('put', '/directory', { RESOURCENAME: 'lab.test' }, other.token)).result).toEqual({ status: 'Failed', message: 'Only a super administrator may configure the directory' });
    expect((await call('put', '/directory', { RESOURCENAME: 'lab.test', USERFILTER: '(&(objectClass=user' })).result).toEqual({ status: 'Failed', message: 'USERFILTER is not an LDAP filter: (&(objectClass=user' });
    expect((await call('put', '/directory', { RESOURCENAME: 'lab.test', ROLEMAP: { 'Vault Admins': 'Root' } })).result.message).toMatch(/^ROLEMAP Vault Admins: Root is not a role/);
    const res = await call('put', '/directory', { RESOURCENAME: 'lab.test', USERBASE: staff, ROLEMAP: { 'Vault Admins': 'Administrator' }, SYNCINTERVAL: 0 });
    expect(res.result).toEqual({ status: 'Success', message: 'Directory configured successfully' });
    expect(res.Details).toMatchObject({ RESOURCENAME: 'lab.test', USERBASE: staff, GROUPBASE: staff, DEFAULTROLE: 'Password User', USERSFOUND: '3', GROUPSFOUND: '2' });
    const [used] = await s.dataSource.query(`SELECT actor_name, description FROM audit WHERE operation = 'Password Used' ORDER BY id DESC LIMIT 1`);
    expect(used).toEqual({ actor_name: 'admin', description: `Directory configuration: a test bind and search; to ${dc.host}:636 (Windows Domain)` });
  });

  it('imports users with the role of their groups and groups with their members; a name a local user holds is a conflict, never linked', async () => {
    const result = await sync();
    expect(result).toMatchObject({ USERS: '3', CREATED: '2', GROUPSCREATED: '2', MEMBERSHIPSADDED: '2', CONFLICTS: ['admin'] });
    expect(await userRow('dana')).toMatchObject({ role: 'Administrator', locked: false, email: 'dana@lab.test', full_name: 'Dana Scully', password_hash: null });
    expect(await userRow('eric')).toMatchObject({ role: 'Password User', locked: false });
    expect(await groupMembers('Vault Admins')).toEqual(['dana']);
    expect(await groupMembers('Operators')).toEqual(['eric']);
    const [admin] = await s.dataSource.query(`SELECT directory_guid, password_hash IS NOT NULL AS local FROM users WHERE username = 'admin'`);
    expect(admin).toEqual({ directory_guid: null, local: true });
    expect((await signIn('admin', PASSWORDS.admin)).status).toBe(401);
    const rows = await s.dataSource.query(`SELECT actor_name, target FROM audit WHERE operation = 'User Added' AND target IN ('dana', 'eric') ORDER BY target`);
    expect(rows).toEqual([{ actor_name: 'System', target: 'dana' }, { actor_name: 'System', target: 'eric' }]);
    // Nothing changed: nothing to do.
    expect(await sync()).toMatchObject({ CREATED: '0', UPDATED: '0', MEMBERSHIPSADDED: '0', MEMBERSHIPSREMOVED: '0' });
  });

  it('a person signs in with the directory password; an administrator then sets up TOTP; a wrong password is refused', async () => {
    expect((await signIn('eric', 'Not-His-Password-1')).status).toBe(401);
    const eric = await signIn('eric', PASSWORDS.eric);
    expect(eric.status).toBe(303);
    expect(eric.headers.location).toBe('/console/accounts');
    const dana = await signIn('dana', PASSWORDS.dana);
    expect(dana.headers.location).toBe('/console/totp/enrol');
    const page = await request(s.vaultUrl).get('/console/totp/enrol').set('Cookie', cookieOf(dana));
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.text)![1];
    const enrolled = await request(s.vaultUrl).post('/console/totp/enrol').set('Cookie', cookieOf(dana)).set('Origin', s.vaultUrl).type('form').send({ csrf: csrfOf(page.text), code: totpCode(secret) });
    expect(enrolled.headers.location).toBe('/console/accounts');
    const [signedIn] = await s.dataSource.query(`SELECT description FROM audit WHERE operation = 'Console Sign In' AND target = 'eric'`);
    expect(signedIn.description).toBe('signed in with the directory password');
  });

  it('a directory user makes their own API token on the console, and it works', async () => {
    const cookie = cookieOf(await signIn('eric', PASSWORDS.eric));
    const page = await request(s.vaultUrl).get('/console/password').set('Cookie', cookie);
    const made = await request(s.vaultUrl).post('/console/token').set('Cookie', cookie).set('Origin', s.vaultUrl).type('form').send({ csrf: csrfOf(page.text) });
    expect(made.headers['cache-control']).toContain('no-store');
    const token = /id="new-token">([^<]+)</.exec(made.text)![1];
    expect((await call('get', '/resources', undefined, token)).result.status).toBe('Success');
  });

  it('a user first seen at sign-in is created then; renames and group changes follow at the next synchronisation', async () => {
    await dc.createUser('frank', PASSWORDS.frank, { ou: staff, mail: 'frank@lab.test' });
    expect((await signIn('frank', PASSWORDS.frank)).status).toBe(303);
    expect(await userRow('frank')).toMatchObject({ role: 'Password User', email: 'frank@lab.test' });
    await dc.addMember('Vault Admins', 'frank');
    await dc.removeMember('Vault Admins', 'dana');
    await dc.addMember('Operators', 'dana');
    await dc.renameUser('frank', 'franklin');
    const result = await sync();
    expect(result).toMatchObject({ CREATED: '0', MEMBERSHIPSADDED: '2', MEMBERSHIPSREMOVED: '1' });
    expect(await groupMembers('Vault Admins')).toEqual(['franklin']);
    expect(await groupMembers('Operators')).toEqual(['dana', 'eric']);
    expect(await userRow('dana')).toMatchObject({ role: 'Password User' });
    expect(await userRow('franklin')).toMatchObject({ role: 'Administrator' });
    expect(await userRow('frank')).toBeUndefined();
    const [removed] = await s.dataSource.query(`SELECT actor_name, description FROM audit WHERE operation = 'User Removed From Group' AND target = 'dana'`);
    expect(removed).toEqual({ actor_name: 'System', description: 'from Vault Admins (directory group)' });
  });

  it('the admin CLI configures and synchronises the same way (directory, directory-sync), audited as the system', async () => {
    const admin = async (...argv: string[]): Promise<string[]> => {
      const lines: string[] = [];
      const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
      const ctx = await openAdminContext(loadConfig({ DATABASE_URL: s.databaseUrl, DATA_DIR: s.config.dataDir, LOG_LEVEL: 'error' }));
      try {
        await COMMANDS.find((c) => c.name === argv[0])!.run(ctx, parseArgs(argv.slice(1)));
      } finally {
        log.mockRestore();
        await ctx.close();
      }
      return lines;
    };
    const out = await admin('directory', '--resource', 'lab.test', '--user-base', staff, '--role-map', '{"Vault Admins":"Administrator"}', '--sync-interval', '0');
    expect(out).toEqual([`Directory configured: users under ${staff} (4 found), groups under ${staff} (2 found).`]);
    const synced = (await admin('directory-sync')).join('\n').split('\n');
    expect(synced).toEqual(expect.arrayContaining(['users: 4', 'conflicts: admin']));
    const [used] = await s.dataSource.query(`SELECT actor_name, description FROM audit WHERE operation = 'Password Used' ORDER BY id DESC LIMIT 1`);
    expect(used).toEqual({ actor_name: 'System', description: `Directory synchronisation; started by admin CLI; to ${dc.host}:636 (Windows Domain)` });
  });

  it('the schedule: a due directory is synchronised by one of two instances ticking at once, then not again within its interval', async () => {
    await s.dataSource.query(`UPDATE directories SET sync_interval_seconds = 3600, last_sync_at = now() - interval '2 hours'`);
    const count = async () => (await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE operation = 'Directory Synchronised'`))[0].n;
    const before = await count();
    const scheduler = s.vault.get(DirectoryScheduler);
    await Promise.all([scheduler.tick(), scheduler.tick()]);
    await scheduler.tick();
    const [state] = await s.dataSource.query('SELECT last_sync_result FROM directories');
    expect([(await count()) - before, state.last_sync_result.error]).toEqual([1, undefined]);
    const [row] = await s.dataSource.query(`SELECT description FROM audit WHERE operation = 'Directory Synchronised' ORDER BY id DESC LIMIT 1`);
    expect(row.description).toMatch(/^scheduled synchronisation: users \d+/);
    await s.dataSource.query(`UPDATE directories SET sync_interval_seconds = 0`);
  });

  it('a disabled account cannot sign in and is locked at the next synchronisation; one gone from the directory is locked, not deleted', async () => {
    await dc.setEnabled('eric', false);
    expect((await signIn('eric', PASSWORDS.eric)).status).toBe(401);
    await dc.deleteUser('franklin');
    const result = await sync();
    expect(result).toMatchObject({ LOCKED: '2' });
    expect(await userRow('eric')).toMatchObject({ locked: true });
    expect(await userRow('franklin')).toMatchObject({ locked: true });
    const locks = await s.dataSource.query(`SELECT target, description FROM audit WHERE operation = 'User Locked' AND actor_name = 'System' ORDER BY target`);
    expect(locks).toEqual([
      { target: 'eric', description: 'disabled or locked out in the directory' },
      { target: 'franklin', description: 'gone from the directory (kept, with its audit trail and shares)' },
    ]);
    await dc.setEnabled('eric', true);
    expect(await sync()).toMatchObject({ UNLOCKED: '1' });
    expect(await userRow('eric')).toMatchObject({ locked: false });
    expect((await signIn('eric', PASSWORDS.eric)).status).toBe(303);
  });

  it('someone with full access to the Windows Domain resource cannot move the sign-in elsewhere: a moved resource is refused until a super administrator configures the directory again', async () => {
    const mover = await createUserWithToken(s, 'domain-owner', 'Password Administrator');
    const [resource] = await s.dataSource.query(`SELECT id FROM resources WHERE name = 'lab.test'`);
    await s.dataSource.query(`INSERT INTO shares (resource_id, user_id, access_type) VALUES ($1, $2, 'fullaccess')`, [resource.id, mover.id]);
    // The same domain controller by StartTLS on 389: a destination the directory was not configured with.
    const moved = await call('put', `/resources/${resource.id}/remotepasswordreset`, { ACCOUNTNAME: dc.admin.username, DNSNAME: dc.host, PORT: String(dc.ldapPort), TLS: 'starttls', CACERT: dc.certPem, BASEDN: dc.baseDn }, mover.token);
    expect(moved.result.status).toBe('Success');
    const refused = await call('post', '/directory/sync', {});
    expect(refused.result).toEqual({ status: 'Failed', message: `The directory's resource lab.test now connects to ${dc.host}:${dc.ldapPort}, not where the directory was configured: a super administrator must configure the directory again` });
    expect((await signIn('dana', PASSWORDS.dana)).status).toBe(401);
    expect((await call('put', '/directory', { RESOURCENAME: 'lab.test' })).result.status).toBe('Success');
    expect((await signIn('dana', PASSWORDS.dana)).status).toBe(303);
  });
});
