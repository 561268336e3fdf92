import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { loadConfig } from '@app/config';
import { COMMANDS } from '../../scripts/admin/commands';
import { openAdminContext } from '../../scripts/admin/context';
import { parseArgs } from '../../scripts/admin/args';
import { startTestServices, TestServices } from '../support/app';

/**
 * Issue 39: any API token can be rotated or revoked from the command line (at once, on every
 * instance), and DATA_DIR/initial-admin-token does not outlive its job.
 */
describe('admin token lifecycle', () => {
  let s: TestServices;
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
  const works = async (token: string) => (await request(s.vaultUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', token)).body.operation.result.status === 'Success';
  const file = () => join(s.config.dataDir, 'initial-admin-token');
  const audit = (operation: string) => s.dataSource.query('SELECT target, description FROM audit WHERE operation = $1 ORDER BY id', [operation]);

  beforeEach(async () => {
    s = await startTestServices();
  });
  afterEach(() => s?.close());

  it('rotate-token: the new token works, every earlier one stops at once; the initial file goes with the old token', async () => {
    const old = s.adminToken;
    expect(readFileSync(file(), 'utf8').trim()).toBe(old);
    const out = await admin('rotate-token', '--username', 'admin');
    const token = out[out.length - 1];
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(out[0]).toMatch(/initial-admin-token: its token was rotated or revoked\.$/);
    expect(await works(token)).toBe(true);
    expect(await works(old)).toBe(false);
    expect(existsSync(file())).toBe(false);
    expect(await audit('API Token Rotated')).toEqual([{ target: 'admin', description: 'every earlier token revoked (admin CLI)' }]);
    expect(await audit('Initial Token File Removed')).toEqual([{ target: 'admin', description: `${file()} removed: its token was rotated or revoked` }]);
    expect(JSON.stringify(await s.dataSource.query('SELECT * FROM audit'))).not.toContain(token);
  });

  it('revoke-token: the token stops at once; a user without a token or an unknown one is an error', async () => {
    const out = await admin('create-api-user', '--username', 'pipeline', '--role', 'Password User');
    const token = out[out.length - 1];
    expect(await works(token)).toBe(true);
    expect(await admin('revoke-token', '--username', 'pipeline')).toEqual(['Revoked 1 token(s) of pipeline.']);
    expect(await works(token)).toBe(false);
    expect(await audit('API Token Revoked')).toEqual([{ target: 'pipeline', description: '1 token(s) revoked (admin CLI)' }]);
    // The first administrator's file is untouched by someone else's revocation.
    expect(existsSync(file())).toBe(true);
    await expect(admin('revoke-token', '--username', 'nobody')).rejects.toThrow('No user named nobody');
  });

  it('the initial file is removed once a second super administrator has a token, and on request', async () => {
    await admin('create-api-user', '--username', 'ops-lead', '--role', 'Password User');
    expect(existsSync(file())).toBe(true);
    const out = await admin('create-api-user', '--username', 'second-admin', '--role', 'Administrator', '--superadmin');
    expect(out[0]).toMatch(/initial-admin-token: another super administrator \(second-admin\) has a token\.$/);
    expect(existsSync(file())).toBe(false);
    // The first token itself still works: only the clear copy on disk is gone.
    expect(await works(s.adminToken)).toBe(true);
    expect(await admin('remove-initial-token')).toEqual([`There is no ${file()}.`]);
  });

  it('remove-initial-token removes the file now, audited', async () => {
    expect(await admin('remove-initial-token')).toEqual([`Removed ${file()}.`]);
    expect(existsSync(file())).toBe(false);
    expect(await audit('Initial Token File Removed')).toEqual([{ target: 'admin', description: `${file()} removed: asked for by the admin command remove-initial-token` }]);
  });

  it('set-login-password gives a person a console password that signs in; an API user has none', async () => {
    const created = await request(s.vaultUrl).post('/api/pki/restapi/user').set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: JSON.stringify({ operation: { Details: { USERNAME: 'carol', ROLE: 'Password User', PASSWORD: 'First-Passw0rd!long', EMAIL: 'carol@example.test' } } }) });
    expect(created.body.result.status).toBe('Success');
    const out = await admin('set-login-password', '--username', 'carol');
    const password = out[out.length - 1];
    const signIn = (pw: string) => request(s.vaultUrl).post('/console/sign-in').set('Origin', s.vaultUrl).type('form').send({ username: 'carol', password: pw });
    expect((await signIn('First-Passw0rd!long')).status).toBe(401);
    const ok = await signIn(password);
    expect(ok.status).toBe(303);
    expect(ok.headers['set-cookie'][0]).toMatch(/^__Host-credvault=/);
    expect(await audit('User Password Changed')).toEqual([{ target: 'carol', description: 'login password set by the admin CLI' }]);
    const api = await request(s.vaultUrl).post('/restapi/json/v1/user').set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: JSON.stringify({ operation: { Details: { USERNAME: 'a-program', ROLE: 'Password User', ISAPIUSER: 'true' } } }) });
    expect(api.body.operation.result.status).toBe('Success');
    await expect(admin('set-login-password', '--username', 'a-program')).rejects.toThrow('a-program is an API user');
  });

  it('the first start\'s admin signs in to the console with DATA_DIR/initial-admin-password (the README), enrols TOTP, and set-login-password resets it', async () => {
    const file = join(s.config.dataDir, 'initial-admin-password');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const signIn = (pw: string) => request(s.vaultUrl).post('/console/sign-in').set('Origin', s.vaultUrl).type('form').send({ username: 'admin', password: pw });
    const first = await signIn(readFileSync(file, 'utf8').trim());
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/console/totp/enrol');
    const out = await admin('set-login-password', '--username', 'admin');
    expect((await signIn(readFileSync(file, 'utf8').trim())).status).toBe(401);
    expect((await signIn(out[out.length - 1])).headers.location).toBe('/console/totp/enrol');
  });

  it('create-user makes a person who signs in to the console with the printed password (an administrator then enrols TOTP)', async () => {
    const out = await admin('create-user', '--username', 'dana', '--role', 'Administrator', '--superadmin', '--email', 'dana@example.test');
    const password = out[out.length - 1];
    const [row] = await s.dataSource.query(`SELECT role, is_super_admin, is_api_user, email FROM users WHERE username = 'dana'`);
    expect(row).toEqual({ role: 'Administrator', is_super_admin: true, is_api_user: false, email: 'dana@example.test' });
    const ok = await request(s.vaultUrl).post('/console/sign-in').set('Origin', s.vaultUrl).type('form').send({ username: 'dana', password });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe('/console/totp/enrol');
    expect(await audit('User Added')).toEqual(expect.arrayContaining([{ target: 'dana', description: 'user dana (Administrator, super administrator) created by admin CLI' }]));
    await expect(admin('create-user', '--username', 'dana', '--role', 'Administrator')).rejects.toThrow('A user named dana already exists');
  });
});
