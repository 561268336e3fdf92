import { Browser, BrowserContext, chromium, Locator, Page } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { hashToken } from '@app/crypto';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { call } from '../vault/workflow-helpers';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { totpCode } from '../../apps/vault/src/console/totp';

const V = '/restapi/json/v1';

/** The text of the first element a locator finds, once it is there. */
async function textOf(locator: Locator): Promise<string> {
  await locator.first().waitFor({ timeout: 15_000 });
  return ((await locator.first().textContent()) ?? '').trim();
}

async function until<T>(check: () => Promise<T | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}
const PASSWORD = 'Console-Passw0rd!1';
const XSS_RESOURCE = '<img src=x onerror=alert(1)>';
const XSS_ACCOUNT = '"><script>alert(2)</script>';

/**
 * Issue 36, in a real browser (Debian's Chromium driven by playwright-core): a Password User
 * asks for a password under access control, an Administrator (TOTP enrolled on first sign-in)
 * approves it in another browser context, the user checks out, reveals, checks in; the audit
 * trail has every step. Names that are markup stay text; forms from another origin do nothing;
 * the session cookie is host-only, Secure, HttpOnly and SameSite=Strict; sign-out and the idle
 * time-out end the session on the server; a TOTP code is accepted once.
 */
describe('web console in a browser', () => {
  let s: TestServices;
  let browser: Browser;
  let base: string;
  const dialogs: string[] = [];
  let resource: Awaited<ReturnType<typeof createResource>>;
  let xss: Awaited<ReturnType<typeof createResource>>;
  let bobSecret = '';

  // A person with a login password: PAM360's create-user operation (the vault's prefix B) takes one.
  const newUser = async (name: string, role: string, superAdmin = false) => {
    const details = { USERNAME: name, ROLE: role, PASSWORD, EMAIL: `${name}@example.test`, ...(superAdmin ? { ISSUPERADMIN: 'true' } : {}) };
    const res = await request(s.vaultUrl).post('/api/pki/restapi/user').set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: JSON.stringify({ operation: { Details: details } }) });
    expect(res.body.result.status).toBe('Success');
    const [row] = await s.dataSource.query('SELECT id FROM users WHERE username = $1', [name]);
    return row.id as number;
  };
  const shareTo = async (rid: number, userId: number) =>
    expect((await call(s.vaultUrl, 'put', `${V}/resources/${rid}/share`, s.adminToken, { ACCESSTYPE: 'view', USERID: String(userId) })).result.status).toBe('Success');

  const context = async (): Promise<BrowserContext> => {
    const ctx = await browser.newContext();
    ctx.on('page', (p) => p.on('dialog', (d) => void (dialogs.push(d.message()), d.dismiss())));
    return ctx;
  };
  const signIn = async (page: Page, username: string) => {
    await page.goto(`${base}/`);
    await page.getByLabel('User name', { exact: true }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  beforeAll(async () => {
    s = await startTestServices();
    base = s.vaultUrl.replace('127.0.0.1', 'localhost');
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    const alice = await newUser('alice', 'Password User');
    const bob = await newUser('bob', 'Administrator');
    resource = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'db-prod', ACCOUNTNAME: 'postgres' });
    const settings = { APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 1, ADMINS_APPROVE: 'false', APPROVER_USERS: 'bob', EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30 };
    expect((await call(s.vaultUrl, 'put', `${V}/resources/${resource.resourceId}/accounts/${resource.accountId}/accesscontrol`, s.adminToken, settings)).result.status).toBe('Success');
    xss = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: XSS_RESOURCE, ACCOUNTNAME: XSS_ACCOUNT });
    for (const rid of [resource.resourceId, xss.resourceId]) for (const uid of [alice, bob]) await shareTo(rid, uid);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('the whole loop: request, approve (TOTP), check out, reveal, check in, audited', async () => {
    const aliceContext = await context();
    const alice = await aliceContext.newPage();
    await signIn(alice, 'alice');
    await alice.waitForURL(/\/console\/accounts$/);
    await alice.getByLabel('Search resources, accounts or DNS names').fill('db-prod');
    await alice.getByRole('button', { name: 'Search' }).click();
    await alice.getByRole('link', { name: 'db-prod' }).click();
    await alice.getByLabel('Reason').first().fill('incident 4711');
    await alice.getByRole('button', { name: 'Request access' }).click();
    expect(await textOf(alice.getByRole('status'))).toBe('Password requested successfully');

    const bobContext = await context();
    const bob = await bobContext.newPage();
    await signIn(bob, 'bob');
    await bob.waitForURL(/\/console\/totp\/enrol$/);
    bobSecret = (await bob.locator('#totp-secret').textContent())!.trim();
    await bob.getByLabel('Code the app shows now').fill(totpCode(bobSecret));
    await bob.getByRole('button', { name: 'Confirm' }).click();
    await bob.waitForURL(/\/console\/accounts$/);
    await bob.getByRole('link', { name: 'Approvals' }).click();
    const row = bob.getByRole('row', { name: /alice/ });
    expect(await textOf(row)).toContain('incident 4711');
    await row.getByRole('button', { name: 'Approve' }).click();
    expect(await textOf(bob.getByRole('status'))).toBe('Password request approved successfully');

    await alice.reload();
    await alice.getByLabel('Reason').first().fill('incident 4711');
    await alice.getByRole('button', { name: 'Check out' }).click();
    await alice.getByRole('button', { name: 'Reveal password' }).click();
    expect(await textOf(alice.locator('output.secret'))).toBe(resource.password);
    await alice.getByRole('link', { name: 'My check-outs' }).click();
    await alice.getByRole('button', { name: 'Check in now' }).click();
    expect(await textOf(alice.getByRole('status'))).toMatch(/checked in/i);

    const rows = await s.dataSource.query(`SELECT operation, actor_name FROM audit WHERE account_id = $1 ORDER BY id`, [resource.accountId]);
    expect(rows.map((r: { operation: string; actor_name: string }) => `${r.operation} ${r.actor_name}`)).toEqual(
      expect.arrayContaining(['Password Requested alice', 'Password Request Approved bob', 'Password Checked Out alice', 'Password Retrieved alice', 'Password Checked In alice']),
    );
    const signIns = await s.dataSource.query(`SELECT target FROM audit WHERE operation = 'Console Sign In' ORDER BY id`);
    expect(signIns.map((r: { target: string }) => r.target)).toEqual(['alice', 'bob']);
    await aliceContext.close();
    await bobContext.close();
  }, 120_000);

  it('a request for later carries its window (PAM360 ACCESS later) and shows it', async () => {
    const ctx = await context();
    const alice = await ctx.newPage();
    await signIn(alice, 'alice');
    await alice.waitForURL(/\/console\/accounts$/);
    await alice.goto(`${base}/console/resources/${resource.resourceId}`);
    const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    const start = new Date(Date.now() + 86_400_000);
    start.setSeconds(0, 0);
    const end = new Date(start.getTime() + 2 * 3_600_000);
    await alice.getByLabel('Reason').first().fill('maintenance window');
    await alice.getByText('Later', { exact: true }).click();
    await alice.getByLabel('From').first().fill(local(start));
    await alice.getByLabel('Until').first().fill(local(end));
    await alice.getByRole('button', { name: 'Request access' }).click();
    expect(await textOf(alice.getByRole('status'))).toBe('Password requested successfully');
    expect(await textOf(alice.getByRole('row', { name: /postgres/ }))).toMatch(/your request for .* to .* waits for approval/);
    const [row] = await s.dataSource.query(`SELECT id, window_start, window_end FROM password_requests WHERE account_id = $1 AND status = 'waiting'`, [resource.accountId]);
    expect([row.window_start, row.window_end]).toEqual([start, end]);
    await s.dataSource.query(`UPDATE password_requests SET status = 'expired' WHERE id = $1`, [row.id]);
    await ctx.close();
  }, 60_000);

  it('the first start\'s admin signs in with DATA_DIR/initial-admin-password, enrols TOTP, and changing that password removes the file', async () => {
    const file = join(s.config.dataDir, 'initial-admin-password');
    const ctx = await context();
    const page = await ctx.newPage();
    await page.goto(`${base}/`);
    await page.getByLabel('User name', { exact: true }).fill('admin');
    await page.getByLabel('Password', { exact: true }).fill(readFileSync(file, 'utf8').trim());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/totp\/enrol$/);
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    await page.getByLabel('Code the app shows now').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/\/console\/accounts$/);
    await page.getByRole('link', { name: 'My password' }).click();
    await page.getByLabel('Current password').fill(readFileSync(file, 'utf8').trim());
    await page.getByLabel('New password (12 characters or more)').fill('Admin-Own-Passw0rd!');
    await page.getByLabel('New password again').fill('Admin-Own-Passw0rd!');
    await page.getByRole('button', { name: 'Change my password' }).click();
    await textOf(page.getByRole('status'));
    expect(existsSync(file)).toBe(false);
    // Its own API token, made here: the first start's token file has done its job too (later tests use the new token).
    await page.getByRole('button', { name: 'Create a new API token' }).click();
    const token = await textOf(page.locator('#new-token'));
    expect((await request(s.vaultUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', token)).body.operation.result.status).toBe('Success');
    expect(existsSync(join(s.config.dataDir, 'initial-admin-token'))).toBe(false);
    s.adminToken = token;
    await ctx.close();
  }, 60_000);

  it('names that are markup are text on every page, and no dialog is raised', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    await signIn(page, 'alice');
    await page.waitForURL(/\/console\/accounts$/);
    await (page.getByRole('link', { name: XSS_RESOURCE })).first().waitFor({ timeout: 15_000 });
    await page.getByRole('link', { name: XSS_RESOURCE }).click();
    expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe(`Resource ${XSS_RESOURCE}`);
    await (page.getByRole('cell', { name: XSS_ACCOUNT })).first().waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Reveal password' }).click();
    expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe(`${XSS_RESOURCE} / ${XSS_ACCOUNT}`);
    for (const path of ['/console/accounts', '/console/checkouts', '/console/audit?type=Resource', '/console/approvals']) {
      await page.goto(`${base}${path}`);
    }
    expect(dialogs).toEqual([]);
    await ctx.close();
  }, 60_000);

  it('the session cookie is __Host-, Secure, HttpOnly, SameSite=Strict; pages forbid framing and inline script and are not stored', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    await signIn(page, 'alice');
    await page.waitForURL(/\/console\/accounts$/);
    const [cookie] = await ctx.cookies();
    expect(cookie).toMatchObject({ name: '__Host-credvault', path: '/', httpOnly: true, secure: true, sameSite: 'Strict' });
    expect(cookie.domain).toBe('localhost');
    const res = await page.request.get(`${base}/console/accounts`);
    expect(res.headers()['content-security-policy']).toMatch(/script-src 'self'.*frame-ancestors 'none'/);
    expect(res.headers()['cache-control']).toBe('no-store');
    // A page with its style sheet and script weighs far under 200 KB.
    const weight = (await res.body()).length + (await (await page.request.get(`${base}/console/app.css`)).body()).length + (await (await page.request.get(`${base}/console/app.js`)).body()).length;
    expect(weight).toBeLessThan(200 * 1024);
    await ctx.close();
  }, 60_000);

  it('a form posted from another origin does nothing, even with the session cookie', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    await signIn(page, 'alice');
    await page.waitForURL(/\/console\/accounts$/);
    await page.goto(`${base}/console/resources/${xss.resourceId}`);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const [cookie] = await ctx.cookies();
    const before = await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE operation = 'Password Retrieved'`);
    const forged = await request(s.vaultUrl)
      .post(`/console/resources/${xss.resourceId}/accounts/${xss.accountId}/reveal`)
      .set('Cookie', `${cookie.name}=${cookie.value}`)
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ csrf });
    expect(forged.status).toBe(403);
    expect(forged.text).not.toContain(xss.password);
    const withoutToken = await request(s.vaultUrl)
      .post(`/console/resources/${xss.resourceId}/accounts/${xss.accountId}/reveal`)
      .set('Cookie', `${cookie.name}=${cookie.value}`)
      .set('Origin', s.vaultUrl)
      .type('form')
      .send({});
    expect(withoutToken.status).toBe(403);
    expect(await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE operation = 'Password Retrieved'`)).toEqual(before);
    await ctx.close();
  }, 60_000);

  it('sign-out and the idle time-out end the session on the server', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    await signIn(page, 'alice');
    await page.waitForURL(/\/console\/accounts$/);
    const [cookie] = await ctx.cookies();
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.waitForURL(/\/console\/sign-in$/);
    const replay = await request(s.vaultUrl).get('/console/accounts').set('Cookie', `${cookie.name}=${cookie.value}`);
    expect(replay.status).toBe(303);
    expect(replay.headers.location).toBe('/console/sign-in');

    await signIn(page, 'alice');
    await page.waitForURL(/\/console\/accounts$/);
    const [idle] = await ctx.cookies();
    await s.dataSource.query(`UPDATE console_sessions SET last_seen_at = now() - interval '16 minutes' WHERE token_hash = $1`, [hashToken(idle.value)]);
    await page.goto(`${base}/console/accounts`);
    await page.waitForURL(/\/console\/sign-in$/);
    expect(await s.dataSource.query(`SELECT id FROM console_sessions WHERE token_hash = $1`, [hashToken(idle.value)])).toEqual([]);
    await ctx.close();
  }, 60_000);

  it('a TOTP code is accepted once; a wrong password and a reused code are refused, through the API\'s ledger', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel('User name', { exact: true }).fill('bob');
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await textOf(page.getByRole('alert'))).toBe('Sign-in failed: wrong user name, password or code');

    // A step this secret has not used yet, within the one-step window of now.
    const [{ last }] = await s.dataSource.query(`SELECT totp_last_step::int AS last FROM users WHERE username = 'bob'`);
    const code = totpCode(bobSecret, Math.max(Math.floor(Date.now() / 30_000), last + 1) * 30_000);
    await signIn(page, 'bob');
    await page.waitForURL(/\/console\/totp$/);
    await page.getByLabel('Code from your authenticator app').fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/console\/accounts$/);
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.waitForURL(/\/console\/sign-in$/);

    await signIn(page, 'bob');
    await page.waitForURL(/\/console\/totp$/);
    await page.getByLabel('Code from your authenticator app').fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await textOf(page.getByRole('alert'))).toBe('Sign-in failed: wrong user name, password or code');
    expect(page.url()).toMatch(/\/console\/totp$/);
    // Guessing costs the session: the fifth wrong code sends the user back to the password.
    for (let i = 0; i < 4; i++) {
      await page.getByLabel('Code from your authenticator app').fill('000000');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('alert').first().waitFor();
    }
    expect(await textOf(page.getByRole('alert'))).toBe('Too many wrong codes: sign in again.');
    expect(await page.getByLabel('User name', { exact: true }).count()).toBe(1);
    // Both failures went through the API's failed-authentication ledger.
    await until(async () => {
      const [row] = await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE operation = 'Authentication Failed' AND description LIKE '%Sign-in failed%'`);
      return row.n >= 1;
    });
    await ctx.close();
  }, 60_000);

  it('every page passes an accessibility scan (axe-core: no serious or critical violation), and each is photographed', async () => {
    // axe is injected into the page, which the pages' own CSP forbids: this context alone bypasses it.
    const ctx = await browser.newContext({ bypassCSP: true, viewport: { width: 1100, height: 700 } });
    const page = await ctx.newPage();
    const axe = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const shots = process.env.UPDATE_SCREENSHOTS ? join(__dirname, '..', '..', 'docs', 'console') : mkdtempSync(join(tmpdir(), 'console-shots-'));
    mkdirSync(shots, { recursive: true });
    const scan = async (name: string) => {
      await page.evaluate(axe);
      const result = await page.evaluate(async () => (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe.run());
      await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${name}: ${v.id} (${v.nodes.length})`);
    };
    const problems: string[] = [];
    await page.goto(`${base}/console/sign-in`);
    problems.push(...(await scan('sign-in')));
    await signIn(page, 'alice');
    await page.waitForURL(/\/console\/accounts$/);
    for (const [name, path] of [
      ['accounts', '/console/accounts'],
      ['resource', `/console/resources/${resource.resourceId}`],
      ['approvals', '/console/approvals'],
      ['checkouts', '/console/checkouts'],
      ['rotation', '/console/rotation'],
      ['password', '/console/password'],
    ]) {
      await page.goto(`${base}${path}`);
      problems.push(...(await scan(name)));
    }
    await page.goto(`${base}/console/resources/${xss.resourceId}`);
    await page.getByRole('button', { name: 'Reveal password' }).click();
    await page.locator('output.secret').waitFor();
    problems.push(...(await scan('reveal')));
    expect(problems).toEqual([]);
    await ctx.close();
  }, 120_000);

  it('a provider super administrator switches organisation (the API\'s orgName rules); a user with no grant sees no switch', async () => {
    const beta = await createOrgWithAdmin(s, 'Beta');
    await createResource(s.vaultUrl, beta.token, { RESOURCENAME: 'beta-db', ACCOUNTNAME: 'sa' });
    await newUser('erin', 'Administrator', true);
    const ctx = await context();
    const page = await ctx.newPage();
    await signIn(page, 'erin');
    await page.waitForURL(/\/console\/totp\/enrol$/);
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    await page.getByLabel('Code the app shows now').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/\/console\/accounts$/);
    expect(await page.locator('#org option').allTextContents()).toEqual(['Default', 'Beta']);
    await page.getByLabel('Organisation', { exact: true }).selectOption('Beta');
    await page.getByRole('button', { name: 'Switch' }).click();
    await page.waitForURL(/\/console\/accounts$/);
    await page.getByRole('link', { name: 'beta-db' }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('link', { name: 'db-prod' }).count()).toBe(0);
    await ctx.close();

    const other = await context();
    const alice = await other.newPage();
    await signIn(alice, 'alice');
    await alice.waitForURL(/\/console\/accounts$/);
    expect(await alice.locator('#org').count()).toBe(0);
    await other.close();
  }, 60_000);

  it('an administrator adds a resource, shares it, puts an account under access control and locks a user, each as the API does', async () => {
    await newUser('frank', 'Administrator', true);
    await newUser('gina', 'Password User');
    const ctx = await context();
    const page = await ctx.newPage();
    await signIn(page, 'frank');
    await page.waitForURL(/\/console\/totp\/enrol$/);
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    await page.getByLabel('Code the app shows now').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/\/console\/accounts$/);

    await page.getByRole('link', { name: 'Add a resource' }).click();
    await page.getByLabel('Resource name').fill('web-1');
    await page.getByLabel('Account', { exact: true }).fill('deploy');
    await page.getByLabel('Password', { exact: true }).fill('Deploy-Passw0rd!9');
    await page.getByRole('button', { name: 'Add' }).click();
    expect(await textOf(page.getByRole('status'))).toBe('Resource web-1 has been added successfully');

    await page.getByText('Share this resource, or put an account under access control').click();
    await page.getByLabel('User or user group name').fill('gina');
    await page.getByLabel('Access', { exact: true }).selectOption('view');
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    expect(await textOf(page.getByRole('status'))).toBe('Resource shared successfully');
    await page.getByText('Share this resource, or put an account under access control').click();
    await page.getByLabel('Approvers (user names, comma separated; empty: the administrators)').fill('bob');
    await page.getByRole('button', { name: 'Put under access control' }).click();
    expect(await textOf(page.getByRole('status'))).toMatch(/access control/i);
    const [web] = await s.dataSource.query(`SELECT r.id, a.id AS account_id FROM resources r JOIN accounts a ON a.resource_id = r.id WHERE r.name = 'web-1'`);
    const [shareRow] = await s.dataSource.query(`SELECT access_type FROM shares sh JOIN users u ON u.id = sh.user_id WHERE sh.resource_id = $1 AND u.username = 'gina'`, [web.id]);
    expect(shareRow).toEqual({ access_type: 'view' });

    const ginaContext = await context();
    const gina = await ginaContext.newPage();
    await signIn(gina, 'gina');
    await gina.waitForURL(/\/console\/accounts$/);
    await gina.getByRole('link', { name: 'web-1' }).click();
    await gina.getByRole('button', { name: 'Request access' }).waitFor();

    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('row', { name: /gina/ }).getByRole('button', { name: 'Lock' }).click();
    expect(await textOf(page.getByRole('status'))).toBe('User gina locked successfully');
    await gina.reload();
    expect(await textOf(gina.getByRole('alert'))).toMatch(/locked/);
    const audit = await s.dataSource.query(`SELECT operation FROM audit WHERE actor_name = 'frank' ORDER BY id`);
    expect(audit.map((r: { operation: string }) => r.operation)).toEqual(expect.arrayContaining(['Resource Added', 'Resource Shared', 'Access Control Configured', 'User Locked']));
    await ctx.close();
    await ginaContext.close();
  }, 90_000);
});
