import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { hashToken } from '@app/crypto';
import { discoverRoutes } from '../auth/routes';
import { PKI_SECRET_PATHS } from '../pki/pki-secret-paths';
import { startTestServices, TestServices } from '../support/app';
import { ConnectionSink, startConnectionSink } from '../support/connection-sink';
import { createResource } from '../support/factories';
import { inputData, Json } from '../support/http';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { call, share, TestUser, user, workflow } from '../vault/workflow-helpers';
import { bindAsDecided } from '../support/destination';

/**
 * Every route that releases, uses or replaces an account's secret, with each condition under
 * which the gate must refuse it: refused with a clear Failed, audited (grant or refusal, the
 * audit row is there before anything moves), and nothing changed or sent. A route marked
 * @SecretPath that is missing here fails the first test.
 */

type Condition = 'other organisation' | 'not shared' | 'view share' | 'access control' | 'checked out by another' | 'help desk' | 'reason' | 'ticket';

interface Fixture {
  caller: TestUser;
  orgId: number;
  resourceId: number;
  accountId: number;
  accountName: string;
}

interface SecretRoute {
  /** METHOD and path as the route snapshot names it. */
  route: string;
  /** What the table's call does, for the test name. */
  entry: string;
  refusedAs: string;
  /** Conditions that do not apply (the use needs no more than view; the role cannot reach the route). */
  skip?: Condition[];
  send(s: TestServices, f: Fixture, extra?: Json): Promise<Json>;
}

const V = '/restapi/json/v1';
const NEW_PASSWORD = 'Brand-New-Pass-77!';
let sink: ConnectionSink;

async function viaHttp(req: request.Test, token: string, details: Json, inQuery: boolean): Promise<Json> {
  req.set('AUTHTOKEN', token);
  const res = await (inQuery ? req.query({ INPUT_DATA: inputData(details) }) : req.type('form').send({ INPUT_DATA: inputData(details) }));
  if (!res.body.operation) throw new Error(`No envelope (HTTP ${res.status}): ${res.text}`);
  return res.body.operation;
}

/**
 * The web console's reveal, as a signed-in person would press it: a full session for the
 * fixture's caller (made in the table, as a sign-in would), this server's Origin and the
 * session's CSRF token. The page's answer is read back as the envelope's parts.
 */
async function viaConsole(s: TestServices, f: Fixture, extra: Json, action = 'reveal'): Promise<Json> {
  const token = randomBytes(32).toString('base64url');
  const csrf = randomBytes(24).toString('base64url');
  await s.dataSource.query(`INSERT INTO console_sessions (token_hash, user_id, csrf, stage) VALUES ($1, $2, $3, 'full')`, [hashToken(token), f.caller.id, csrf]);
  const res = await request(s.vaultUrl)
    .post(`/console/resources/${f.resourceId}/accounts/${f.accountId}/${action}`)
    .set('Cookie', `__Host-credvault=${token}`)
    .set('Origin', s.vaultUrl)
    .type('form')
    .send({ csrf, reason: String(extra.REASON ?? ''), ticket: String(extra.TICKETID ?? '') });
  const unescape = (t: string) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#96;/g, '`').replace(/&amp;/g, '&');
  const refused = /<p class="notice error" role="alert">([^<]*)<\/p>/.exec(res.text);
  if (refused) return { result: { status: 'Failed', message: unescape(refused[1]) } };
  // An action other than reveal answers with the console's redirect, its outcome in `done`.
  const done = res.status === 303 ? new URL(String(res.headers.location), s.vaultUrl).searchParams.get('done') : null;
  if (done !== null) return { result: { status: 'Success', message: done }, Details: { STATUS: done.split(': ').pop() } };
  const secret = /<output class="secret"[^>]*>([^<]*)<\/output>/.exec(res.text);
  if (!secret) throw new Error(`Neither a password nor a refusal (HTTP ${res.status}): ${res.text.slice(0, 300)}`);
  return { result: { status: 'Success' }, Details: { PASSWORD: unescape(secret[1]) } };
}

const ROUTES: SecretRoute[] = [
  {
    route: 'POST /console/resources/:rid/accounts/:aid/reveal',
    entry: 'password reveal (web console)',
    refusedAs: 'Password Retrieval Denied',
    skip: ['view share'],
    send: (s, f, extra = {}) => viaConsole(s, f, extra),
  },
  {
    route: 'GET /restapi/json/v1/resources/:rid/accounts/:aid/password',
    entry: 'password read (lean route)',
    refusedAs: 'Password Retrieval Denied',
    skip: ['view share'],
    send: (s, f, extra = {}) => viaHttp(request(s.vaultUrl).get(`${V}/resources/${f.resourceId}/accounts/${f.accountId}/password`), f.caller.token, extra, true),
  },
  {
    route: 'GET /restapi/json/v1/resources/:rid/accounts/:aid/password',
    entry: 'password read (controller)',
    refusedAs: 'Password Retrieval Denied',
    skip: ['view share'],
    send: (s, f, extra = {}) => viaHttp(request(s.vaultUrl).get(`${V}//resources/${f.resourceId}/accounts/${f.accountId}/password`), f.caller.token, extra, true),
  },
  {
    route: 'GET /restapi/json/v1/resources/getResourceAccountDetails',
    entry: 'A2A account details',
    refusedAs: 'Password Retrieval Denied',
    skip: ['view share'],
    send: (s, f, extra = {}) =>
      viaHttp(request(s.vaultUrl).get(`${V}/resources/getResourceAccountDetails`), f.caller.token, { RESOURCEID: String(f.resourceId), ACCOUNTID: String(f.accountId), ...extra }, true),
  },
  {
    route: 'GET /restapi/json/v1/resources/:rid/accounts/:aid/downloadfile',
    entry: 'file download',
    refusedAs: 'File Download Denied',
    skip: ['view share'],
    send: (s, f, extra = {}) => viaHttp(request(s.vaultUrl).get(`${V}/resources/${f.resourceId}/accounts/${f.accountId}/downloadfile`), f.caller.token, extra, true),
  },
  {
    route: 'PUT /restapi/json/v1/resources/:rid/accounts/:aid/password',
    entry: 'password change (LOCAL)',
    refusedAs: 'Password Change Denied',
    send: (s, f, extra = {}) => call(s.vaultUrl, 'put', `${V}/resources/${f.resourceId}/accounts/${f.accountId}/password`, f.caller.token, { NEWPASSWORD: NEW_PASSWORD, ...extra }).then((op) => ({ result: op.result })),
  },
  {
    route: 'PUT /restapi/json/v1/resources/:rid/accounts/:aid/password',
    entry: 'password change (REMOTE)',
    refusedAs: 'Password Change Denied',
    send: (s, f, extra = {}) =>
      call(s.vaultUrl, 'put', `${V}/resources/${f.resourceId}/accounts/${f.accountId}/password`, f.caller.token, { NEWPASSWORD: NEW_PASSWORD, RESETTYPE: 'REMOTE', ...extra }),
  },
  {
    route: 'PUT /restapi/json/v1/resources/:rid/remotepasswordreset',
    entry: 'remote-reset configuration (logs in with the stored password)',
    refusedAs: 'Password Use Denied',
    // A Password User's role cannot reach the route (resource.manage), so the help-desk case is the guard's.
    skip: ['help desk'],
    send: (s, f, extra = {}) =>
      call(s.vaultUrl, 'put', `${V}/resources/${f.resourceId}/remotepasswordreset`, f.caller.token, { ACCOUNTNAME: f.accountName, DNSNAME: '127.0.0.1', PORT: sink.port, ...extra }),
  },
  {
    route: 'POST /restapi/json/v1/resources/:rid/accounts/:aid/verify',
    entry: 'password verification (logs in with the stored password)',
    refusedAs: 'Password Use Denied',
    send: async (s, f, extra = {}) => {
      // The login goes to the sink, never out of loopback.
      await s.dataSource.query(`UPDATE resources SET dns_name = '127.0.0.1', remote_port = $2 WHERE id = $1`, [f.resourceId, sink.port]);
      await bindAsDecided(s.dataSource, f.resourceId);
      return call(s.vaultUrl, 'post', `${V}/resources/${f.resourceId}/accounts/${f.accountId}/verify`, f.caller.token, { ...extra });
    },
  },
  {
    route: 'POST /restapi/json/v1/resources/:rid/accounts/:aid/reconcile',
    entry: 'password reconcile',
    refusedAs: 'Password Change Denied',
    send: (s, f, extra = {}) => call(s.vaultUrl, 'post', `${V}/resources/${f.resourceId}/accounts/${f.accountId}/reconcile`, f.caller.token, { ...extra }),
  },
  {
    route: 'POST /console/resources/:rid/accounts/:aid/verify',
    entry: 'password verification (web console)',
    refusedAs: 'Password Use Denied',
    send: async (s, f, extra = {}) => {
      await s.dataSource.query(`UPDATE resources SET dns_name = '127.0.0.1', remote_port = $2 WHERE id = $1`, [f.resourceId, sink.port]);
      await bindAsDecided(s.dataSource, f.resourceId);
      return viaConsole(s, f, extra, 'verify');
    },
  },
  {
    route: 'POST /console/resources/:rid/accounts/:aid/reconcile',
    entry: 'password reconcile (web console)',
    refusedAs: 'Password Change Denied',
    send: (s, f, extra = {}) => viaConsole(s, f, extra, 'reconcile'),
  },
];

/**
 * The resource's administrator account is the fixture's account (the one the condition is
 * on), its remote resets pointed at the sink; the returned id is another account of the
 * resource that the caller may change, added through the API by the caller itself.
 */
async function administeredBy(s: TestServices, f: Fixture): Promise<number> {
  // The other account is added before the resource is managed: adding one after is a 'redirect' decision on the administrator.
  const name = `other-${f.accountId}`;
  const added = await call(s.vaultUrl, 'post', `${V}/resources/${f.resourceId}/accounts`, f.caller.token, {
    ACCOUNTLIST: [{ ACCOUNTNAME: name, PASSWORD: 'Other-Pass-word-1' }],
    REASON: 'setup',
    TICKETID: 'T-1',
  });
  if (added.result.status !== 'Success') throw new Error(`account not added: ${JSON.stringify(added)}`);
  await s.dataSource.query(`UPDATE resources SET remote_account_id = $1, dns_name = '127.0.0.1', remote_port = $3 WHERE id = $2`, [f.accountId, f.resourceId, sink.port]);
  await bindAsDecided(s.dataSource, f.resourceId);
  return (await s.dataSource.query('SELECT id FROM accounts WHERE resource_id = $1 AND name = $2', [f.resourceId, name]))[0].id;
}

// The rows whose secret is the resource's administrator credential (issue 24): the caller may
// act on the resource (change another account, edit it), and only the administrator's own
// conditions stand in the way. Conditions that already stop the caller before (no share, a
// view share, the help desk role or rule, reason and ticket on the other account) are the rows above.
ROUTES.push(
  {
    route: 'PUT /restapi/json/v1/resources/:rid/accounts/:aid/password',
    entry: 'remote change of another account (uses the administrator credential)',
    refusedAs: 'Password Use Denied',
    skip: ['other organisation', 'not shared', 'view share', 'help desk', 'reason', 'ticket'],
    send: async (s, f, extra = {}) => {
      const other = await administeredBy(s, f);
      return call(s.vaultUrl, 'put', `${V}/resources/${f.resourceId}/accounts/${other}/password`, f.caller.token, { NEWPASSWORD: NEW_PASSWORD, RESETTYPE: 'REMOTE', ...extra });
    },
  },
  {
    route: 'PUT /restapi/json/v1/resources/:rid',
    entry: 'EDIT RESOURCE of the DNS name (where the administrator credential is sent)',
    refusedAs: 'Password Use Denied',
    // Not found, a view share and a role without resource.manage are refused by the resource look-up and the guard.
    skip: ['other organisation', 'not shared', 'view share', 'help desk'],
    send: async (s, f, extra = {}) => {
      await s.dataSource.query(`UPDATE resources SET remote_account_id = $1, dns_name = '127.0.0.1' WHERE id = $2`, [f.accountId, f.resourceId]);
      await bindAsDecided(s.dataSource, f.resourceId);
      const op = await call(s.vaultUrl, 'put', `${V}/resources/${f.resourceId}`, f.caller.token, { DNSNAME: '127.0.0.2', ...extra });
      const [row] = await s.dataSource.query('SELECT dns_name FROM resources WHERE id = $1', [f.resourceId]);
      // A refusal changes nothing.
      if (op.result.status !== 'Success' && row.dns_name !== '127.0.0.1') throw new Error(`refused, yet the DNS name is ${row.dns_name}`);
      return op;
    },
  },
  {
    route: 'PUT /restapi/json/v1/resources/:rid/accounts/:aid',
    entry: 'EDIT ACCOUNT of the name (whose password the administrator credential sets)',
    refusedAs: 'Password Use Denied',
    // As EDIT RESOURCE: the caller's own look-up and the guard refuse those first.
    skip: ['other organisation', 'not shared', 'view share', 'help desk'],
    send: async (s, f, extra = {}) => {
      const other = await administeredBy(s, f);
      const op = await call(s.vaultUrl, 'put', `${V}/resources/${f.resourceId}/accounts/${other}`, f.caller.token, { ACCOUNTNAME: `renamed-${other}`, ...extra });
      const [row] = await s.dataSource.query('SELECT name FROM accounts WHERE id = $1', [other]);
      // A refusal changes nothing.
      if (op.result.status !== 'Success' && row.name !== `other-${f.accountId}`) throw new Error(`refused, yet the account is named ${row.name}`);
      return op;
    },
  },
);

const EXPECTED: Record<Condition, RegExp> = {
  'other organisation': /^No such (account|resource) found$/,
  'not shared': /^No such (account|resource) found$/,
  'view share': /^You need (modify|full) access to (account|resource) /,
  'access control': /request it and check it out first/,
  'checked out by another': /another user has checked it out/,
  'help desk': /help desk users is disabled/,
  reason: /^REASON is required/,
  ticket: /^TICKETID is required/,
};
const CONDITIONS = Object.keys(EXPECTED) as Condition[];

describe('secret paths: one gate refuses, and audits, every path alike', () => {
  let s: TestServices;
  let w: ReturnType<typeof workflow>;
  let owner: TestUser;
  let strict: { orgId: number; token: string; adminId: number };

  beforeAll(async () => {
    s = await startTestServices();
    w = workflow(s.vaultUrl);
    owner = await user(s, 'Password Administrator', 'gate-owner');
    strict = await createOrgWithAdmin(s, `gate-strict-${process.pid}`);
    sink = await startConnectionSink();
  });
  afterAll(async () => {
    await sink.close();
    await s.close();
  });

  async function defaultOrg(): Promise<number> {
    const [org] = await s.dataSource.query(`SELECT id FROM organizations WHERE name = 'Default'`);
    return org.id;
  }

  async function accessControlled(resourceId: number, accountId: number): Promise<void> {
    const op = await call(s.vaultUrl, 'put', `${V}/resources/${resourceId}/accounts/${accountId}/accesscontrol`, owner.token, {
      APPROVAL_REQUIRED: 'true',
      ADMINS_APPROVE: 'true',
      EXCLUSIVE: 'true',
      CHECKOUT_MINUTES: 30,
    });
    expect(op.result.status).toBe('Success');
  }

  /** A resource of `owner` and a caller placed so that exactly `condition` stands between them and the secret. */
  async function fixture(condition: Condition): Promise<Fixture> {
    if (condition === 'reason' || condition === 'ticket') {
      const key = condition === 'reason' ? 'reason_required' : 'ticketing_enabled';
      await s.dataSource.query(`DELETE FROM settings WHERE org_id = $1`, [strict.orgId]);
      await s.dataSource.query(`INSERT INTO settings (org_id, key, value) VALUES ($1, $2, 'true'::jsonb)`, [strict.orgId, key]);
      const r = await createResource(s.vaultUrl, strict.token, { REASON: 'setup', TICKETID: 'T-1' });
      return { caller: { id: strict.adminId, token: strict.token, name: 'admin' }, orgId: strict.orgId, ...ids(r) };
    }
    const r = await createResource(s.vaultUrl, owner.token);
    const orgId = await defaultOrg();
    switch (condition) {
      case 'other organisation': {
        const other = await createOrgWithAdmin(s, `gate-other-${process.pid}-${r.resourceId}`);
        return { caller: { id: other.adminId, token: other.token, name: 'admin' }, orgId: other.orgId, ...ids(r) };
      }
      case 'not shared':
        return { caller: await user(s, 'Password Administrator', 'gate-stranger'), orgId, ...ids(r) };
      case 'view share': {
        const caller = await user(s, 'Password Administrator', 'gate-viewer');
        await share(s, r.resourceId, caller.id, 'view');
        return { caller, orgId, ...ids(r) };
      }
      case 'access control': {
        const caller = await user(s, 'Password Administrator', 'gate-requester');
        await share(s, r.resourceId, caller.id, 'fullaccess');
        await accessControlled(r.resourceId, r.accountId);
        return { caller, orgId, ...ids(r) };
      }
      case 'checked out by another': {
        const caller = await user(s, 'Password Administrator', 'gate-second');
        const holder = await user(s, 'Password Administrator', 'gate-holder');
        await share(s, r.resourceId, caller.id, 'fullaccess');
        await share(s, r.resourceId, holder.id, 'fullaccess');
        await accessControlled(r.resourceId, r.accountId);
        expect((await w.request(holder, r.accountId, { REASON: 'holder' })).result.status).toBe('Success');
        expect((await w.approve(owner, r.accountId, holder.id)).result.status).toBe('Success');
        expect((await w.checkout(holder, r.accountId)).result.status).toBe('Success');
        return { caller, orgId, ...ids(r) };
      }
      case 'help desk': {
        const caller = await user(s, 'Password User', 'gate-helpdesk');
        await share(s, r.resourceId, caller.id, 'fullaccess');
        const [group] = await s.dataSource.query(
          `INSERT INTO resource_groups (org_id, name, name_key, kind, created_by, no_helpdesk_retrieval)
           VALUES ($1, $2, lower($2), 'static', $3, true) RETURNING id`,
          [orgId, `no-helpdesk-${r.resourceId}`, owner.id],
        );
        await s.dataSource.query('INSERT INTO resource_group_members (group_id, resource_id) VALUES ($1, $2)', [group.id, r.resourceId]);
        return { caller, orgId, ...ids(r) };
      }
    }
    throw new Error(condition);
  }

  // The pki secrets (keys, passphrases, key stores) have their own table, whose conditions are
  // the organisation and pki.manage: test/pki/pki-secret-paths.e2e-spec.ts.
  it('every route marked @SecretPath is in this table or the pki one, and every listed route is marked', () => {
    const marked = [...new Set([...discoverRoutes(s.vault), ...discoverRoutes(s.pki)].filter((r) => r.secret).map((r) => `${r.method} ${r.path}`))];
    const listed = [...new Set([...ROUTES.map((r) => r.route), ...PKI_SECRET_PATHS.map((p) => `${p.method.toUpperCase()} /api/pki/restapi/${p.route}`)])];
    expect(marked.filter((r) => !listed.includes(r))).toEqual([]);
    expect(listed.filter((r) => !marked.includes(r))).toEqual([]);
  });

  const cases = ROUTES.flatMap((r) => CONDITIONS.filter((c) => !r.skip?.includes(c)).map((c) => [r.entry, c, r] as const));

  it.each(cases)('%s: refused when %s, audited, nothing moved', async (_entry, condition, route) => {
    const f = await fixture(condition);
    const [before] = await s.dataSource.query('SELECT password FROM accounts WHERE id = $1', [f.accountId]);
    const maxAudit = Number((await s.dataSource.query('SELECT coalesce(max(id), 0) AS id FROM audit'))[0].id);
    const connections = sink.connections();

    const op = await route.send(s, f);

    expect(op.result.status).toBe('Failed');
    expect(op.result.message).toMatch(EXPECTED[condition]);
    expect(op.Details?.PASSWORD ?? '').not.toMatch(/Pw-|Brand-New/);
    const rows = await s.dataSource.query(
      `SELECT org_id, operation, outcome, description FROM audit WHERE id > $1 AND actor_id = $2 AND operation = $3`,
      [maxAudit, f.caller.id, route.refusedAs],
    );
    expect(rows).toEqual([expect.objectContaining({ org_id: f.orgId, outcome: 'Failed', description: expect.stringMatching(/^refused: /) })]);
    const [after] = await s.dataSource.query('SELECT password FROM accounts WHERE id = $1', [f.accountId]);
    expect(after.password.equals(before.password)).toBe(true);
    expect(sink.connections()).toBe(connections);
  });

  it.each(ROUTES.map((r) => [r.entry, r] as const))('%s: granted to the owner, audited', async (_entry, route) => {
    const r = await createResource(s.vaultUrl, owner.token, { RESOURCETYPE: 'Linux' });
    const f = { caller: owner, orgId: await defaultOrg(), ...ids(r) };
    const maxAudit = Number((await s.dataSource.query('SELECT coalesce(max(id), 0) AS id FROM audit'))[0].id);
    const op = await route.send(s, f);
    const rows: { operation: string; outcome: string }[] = await s.dataSource.query(
      `SELECT operation, outcome FROM audit WHERE id > $1 AND actor_id = $2 ORDER BY id`,
      [maxAudit, owner.id],
    );
    if (route.refusedAs === 'Password Retrieval Denied') {
      expect(op.result.status).toBe('Success');
      expect(rows).toEqual([{ operation: 'Password Retrieved', outcome: 'Success' }]);
    } else if (route.refusedAs === 'File Download Denied') {
      // The gate grants; there is no file, which is said after the decision.
      expect(op.result.message).toBe(`No file is stored for account ${r.accountName}`);
      expect(rows).toEqual([{ operation: 'File Download Denied', outcome: 'Failed' }]);
    } else if (route.entry === 'password change (LOCAL)') {
      expect(op.result.status).toBe('Success');
      expect(rows).toEqual([{ operation: 'Password Changed', outcome: 'Success' }]);
    } else if (route.entry.startsWith('remote change of another account')) {
      // The use is audited before the login; the sink is no SSH server, so the change fails on the host.
      expect(op.result.message).toMatch(/was not changed \(the host refused/);
      expect(rows.map((x) => x.operation)).toEqual(['Account Added', 'Password Used', 'Password Change Failed']);
    } else if (route.entry.startsWith('EDIT RESOURCE')) {
      expect(op.result.status).toBe('Success');
      // The destination moved by a decision on every account: their bindings move with it (issue 33).
      expect(rows).toEqual([
        { operation: 'Destination Approved', outcome: 'Success' },
        { operation: 'Resource Modified', outcome: 'Success' },
      ]);
    } else if (route.entry.startsWith('EDIT ACCOUNT')) {
      expect(op.result.status).toBe('Success');
      expect(rows).toEqual([
        { operation: 'Account Added', outcome: 'Success' },
        { operation: 'Destination Approved', outcome: 'Success' },
        { operation: 'Account Modified', outcome: 'Success' },
      ]);
    } else if (route.entry.startsWith('password verification')) {
      // The sink is no SSH server: the target cannot say, which is an answer, not a failure.
      expect(op.result.status).toBe('Success');
      expect(op.Details.STATUS).toBe('UNREACHABLE');
      expect(rows.map((x) => x.operation)).toEqual(['Password Used', 'Password Verified']);
    } else if (route.entry === 'password change (REMOTE)' || route.entry.startsWith('password reconcile')) {
      expect(op.result.message).toMatch(/Remote password reset is not configured/);
      expect(rows).toEqual([]);
    } else {
      // The use is audited before the login; the sink is no SSH server, so the login fails (audited too).
      expect(op.result.status).toBe('Failed');
      expect(rows.map((x) => x.operation)).toEqual(['Password Used', 'Remote Password Reset Configured']);
      expect(rows[1].outcome).toBe('Failed');
    }
  });
});

function ids(r: { resourceId: number; accountId: number; accountName: string }) {
  return { resourceId: r.resourceId, accountId: r.accountId, accountName: r.accountName };
}
