import fc from 'fast-check';
import request from 'supertest';
import { Permission, ROLE_PERMISSIONS } from '@app/auth';
import { routedPath, RouteMatcher } from '@app/http';
import { createApiUser } from '@app/server';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { installLoopbackFence } from '../support/loopback-fence';
import { newStaticGroupWith, putUnderAccessControl, shareToNewUserGroup } from '../support/sharing';
import { rawRequest } from '../support/raw-http';
import { describeRequest, FuzzRequest, fuzzRequest, FuzzWorld } from './arbitraries';
import { answerProblems, serverProblems } from './oracle';
import { protocolVerdict } from './protocol-oracle';
import { allDtoFields, FuzzRoute, fuzzRoutes, Service } from './route-model';
import { changedDigests, TenantWatch } from './tenant-watch';

/*
 * Tenant isolation, fuzzed: the users of a second organisation (its super administrator and
 * one user of each other role) send generated requests to every route of both services, with
 * the first organisation's ids and names as input, its name in the orgName header now and
 * then. Whatever they send: the first organisation's rows (and the server-wide ones) stay as
 * they were, no audit row lands in it, no row joins the two organisations, and no answer
 * carries what only the first organisation holds (its passwords, notes, key and certificate
 * material). CI runs an eighth of FUZZ_RUNS (default 2,000) per service; FUZZ_SEED replays a run.
 */
const RUNS = Math.ceil(Number(process.env.FUZZ_RUNS ?? 2000) / 8);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

interface Victim {
  orgId: number;
  orgName: string;
  /** What no answer to the other organisation may contain. */
  markers: Buffer[];
  world: Pick<FuzzWorld, 'ids' | 'names'>;
  /** Each account with its resource, as [resource, account] ids and as names. */
  pairs: [string, string][];
}

describe('fuzzing tenant isolation: another organisation never reaches the first', () => {
  const fence = installLoopbackFence();
  let s: TestServices;
  let victim: Victim;
  let world: FuzzWorld;
  let watch: TenantWatch;
  let lastAuditId = 0;
  const routes: Record<Service, FuzzRoute[]> = { vault: [], pki: [] };
  const stats = { cases: 0, success: 0 };

  beforeAll(async () => {
    s = await startTestServices({ SWEEP_INTERVAL_MS: '3600000', MAX_FILE_SIZE: '65536' });
    for (const service of ['vault', 'pki'] as const) routes[service] = fuzzRoutes(s[service], service);
    victim = await seedVictim(s);
    const [other] = await s.dataSource.query(`INSERT INTO organizations (name) VALUES ('Fuzz Other Org') RETURNING id`);
    const admin = await createApiUser(s.dataSource, { orgId: other.id, username: 'admin', role: 'Administrator', superAdmin: true });
    const others = [];
    for (const role of ['Password User', 'Password Auditor', 'Password Administrator']) {
      others.push((await createApiUser(s.dataSource, { orgId: other.id, username: `other-${role.split(' ')[1].toLowerCase()}`, role })).token);
    }
    world = { ...victim.world, tokens: { admin: admin.token, others }, fieldPool: allDtoFields() };
    watch = await TenantWatch.open(s.dataSource, victim.orgId);
    // The seeded state itself joins no two organisations: the check below can fail only on what the requests did.
    expect(await watch.crossLinks()).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    fence.lift();
    console.log(`tenant fuzz (seed ${SEED}): ${stats.cases} cases, ${stats.success} Success; connections refused by the loopback fence: ${fence.refused.length}`);
  });

  it.each(['vault', 'pki'] as const)('%s: the other organisation changes, reads and joins nothing of the first', async (service) => {
    const problems = new Map<string, string>();
    const base = service === 'vault' ? s.vaultUrl : s.pkiUrl;
    const matcher = new RouteMatcher(routes[service]);
    let baseline = await watch.digest();
    lastAuditId = await maxAuditId(s);
    const requests = fc.tuple(fuzzRequest(routes[service], world), fc.constantFrom(undefined, undefined, undefined, victim.orgName, victim.orgName.toUpperCase()));
    await fc.assert(
      fc.asyncProperty(requests, async ([req, orgName]) => {
        if (orgName) req.headers.orgName = orgName;
        const route = matcher.match(req.method, routedPath(req.path.split('?')[0]).path) ?? req.route;
        const localAddress = `127.2.${(stats.cases >> 8) & 255}.${(stats.cases & 255) || 1}`;
        const answer = await rawRequest(base, { method: req.method, path: req.path, headers: req.headers, body: req.body, localAddress });
        const protocol = protocolVerdict(route, req.method, answer);
        const found = protocol ? [...serverProblems(answer), ...protocol.problems] : answerProblems(route, req.method, answer);
        if (carriesMarker(victim, answer.body)) found.push('the answer carries what only the first organisation holds');
        const digest = await watch.digest();
        const changed = changedDigests(baseline, digest);
        if (changed.length > 0) found.push(`changed the first organisation's ${changed.join(', ')}`);
        const audited = await s.dataSource.query('SELECT operation FROM audit WHERE org_id = $1 AND id > $2', [victim.orgId, lastAuditId]);
        if (audited.length > 0) found.push(`wrote audit rows in the first organisation: ${audited.map((r: { operation: string }) => r.operation).join(', ')}`);
        if (++stats.cases % 100 === 0) found.push(...(await watch.crossLinks()).map((link) => `a row joins the two organisations (${link})`));
        if (answer.status < 300 && /"(status|Status)":"Success"/.test(answer.text)) stats.success++;
        for (const problem of found) {
          const key = `${route.method} ${route.path}: ${problem}`;
          if (!problems.has(key)) problems.set(key, `${key}\n    ${describeRequest(req)}\n    → ${answer.status} ${answer.text.slice(0, 300)}`);
        }
        // Report each problem once, then judge the next request from the state this one left.
        baseline = digest;
        if (audited.length > 0) lastAuditId = await maxAuditId(s);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    for (const link of await watch.crossLinks()) problems.set(link, `a row joins the two organisations (${link})`);
    // The seed replays the same requests: FUZZ_SEED=<seed> npx jest test/fuzz/tenant
    expect({ seed: SEED, problems: [...problems.values()] }).toEqual({ seed: SEED, problems: [] });
  }, 60_000 + RUNS * 500);

  /*
   * The same checks, swept rather than drawn: every route, with every path parameter and every
   * field it reads set to each of the first organisation's names and ids in turn, as its
   * clients send them. A random draw reaches a given route with a given name rarely; this
   * reaches each once, as the other organisation's super administrator and its Password User.
   */
  it.each([
    ['vault', 'admin'],
    ['vault', 'Password User'],
    ['pki', 'admin'],
    ['pki', 'Password User'],
  ] as const)('%s, swept as the other organisation\'s %s: every route with each of the first organisation\'s names and ids', async (service, who) => {
    const token = who === 'admin' ? world.tokens.admin : world.tokens.others[0];
    const base = service === 'vault' ? s.vaultUrl : s.pkiUrl;
    const problems: string[] = [];
    let before = await watch.digest();
    let lastAudit = await maxAuditId(s);
    const values = [...victim.world.names, ...victim.world.ids.map(String)];
    let sent = 0;
    // The Password User is refused every route its role may not call before any look-up (the route permission snapshot holds that).
    const callable = (r: FuzzRoute) => who === 'admin' || !(Object.values(Permission) as string[]).includes(r.permission) || (ROLE_PERMISSIONS['Password User'] as readonly string[]).includes(r.permission);
    for (const route of routes[service].filter((r) => !r.protocol && !r.path.startsWith('/console') && r.path !== '/' && callable(r))) {
      // Every field at once, then each alone (ids only in fields named for ids): an optional field
      // holding another object's name would hide a match.
      const alone = route.fields.length > 1 ? route.fields.map((f) => [f]) : [];
      const single = values.flatMap((value) =>
        [route.fields, ...alone.filter(([f]) => /^\d+$/.test(value) === /id$/i.test(f))].map((fields) => ({ pair: [value, value], fields })),
      );
      // A resource and one of its accounts, by ids and by names: the account's in the second path parameter and in fields naming accounts.
      const variants = [...single, ...victim.pairs.map((pair) => ({ pair, fields: route.fields }))];
      await inBatches(variants, 4, async ({ pair, fields }) => {
        const details = Object.fromEntries(fields.map((f) => [f, /account/i.test(f) ? pair[1] : pair[0]]));
        let param = 0;
        const path = route.path.replace(/:[A-Za-z_]+/g, () => encodeURIComponent(pair[Math.min(param++, 1)]));
        const body = ['GET', 'DELETE'].includes(route.method) ? undefined : Buffer.from(`INPUT_DATA=${encodeURIComponent(inputData(details))}`);
        const query = body ? '' : `?${new URLSearchParams({ ...details, INPUT_DATA: inputData(details) })}`;
        const headers: Record<string, string> = { AUTHTOKEN: token, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) };
        // Each request from its own loopback address: refusals count towards the per-address throttle.
        const localAddress = `127.3.${(++sent >> 8) & 255}.${(sent & 255) || 1}`;
        const answer = await rawRequest(base, { method: route.method, path: path + query, headers, body, localAddress });
        const found = answerProblems(route, route.method, answer);
        if (carriesMarker(victim, answer.body)) found.push('the answer carries what only the first organisation holds');
        for (const problem of found) problems.push(`${route.method} ${path + query}: ${problem}\n    → ${answer.status} ${answer.text.slice(0, 300)}`);
      });
      const after = await watch.digest();
      const changed = changedDigests(before, after);
      if (changed.length > 0) problems.push(`${route.method} ${route.path}: changed the first organisation's ${changed.join(', ')}`);
      const audited = await s.dataSource.query('SELECT operation FROM audit WHERE org_id = $1 AND id > $2', [victim.orgId, lastAudit]);
      if (audited.length > 0) problems.push(`${route.method} ${route.path}: wrote audit rows in the first organisation: ${audited.map((r: { operation: string }) => r.operation).join(', ')}`);
      [before, lastAudit] = [after, await maxAuditId(s)];
    }
    problems.push(...(await watch.crossLinks()).map((link) => `a row joins the two organisations (${link})`));
    expect(problems).toEqual([]);
  }, 300_000);

  // The checks above can fail: each sees what it is there to see.
  it('the watch sees a changed row, a row joining the organisations and each kind of marker', async () => {
    const [resource] = await s.dataSource.query(`SELECT id, location FROM resources WHERE org_id = $1 AND name = 'tz-res-1'`, [victim.orgId]);
    const before = await watch.digest();
    await s.dataSource.query(`UPDATE resources SET location = 'moved' WHERE id = $1`, [resource.id]);
    expect(changedDigests(before, await watch.digest())).toEqual(['resources']);
    await s.dataSource.query(`UPDATE resources SET location = $2 WHERE id = $1`, [resource.id, resource.location]);
    expect(changedDigests(before, await watch.digest())).toEqual([]);
    const [stranger] = await s.dataSource.query(`SELECT u.id FROM users u JOIN organizations o ON o.id = u.org_id WHERE o.name = 'Fuzz Other Org' LIMIT 1`);
    const [share] = await s.dataSource.query(`INSERT INTO shares (resource_id, user_id, access_type) VALUES ($1, $2, 'view') RETURNING id`, [resource.id, stranger.id]);
    expect(await watch.crossLinks()).toEqual(['shares.user_id: 1']);
    await s.dataSource.query('DELETE FROM shares WHERE id = $1', [share.id]);
    expect(await watch.crossLinks()).toEqual([]);
    // The first organisation's own administrator sees its markers: passwords, notes, key and certificate material, vault files.
    const [account] = await s.dataSource.query(`SELECT id FROM accounts WHERE resource_id = $1`, [resource.id]);
    const own = (path: string) => rawRequest(s.vaultUrl, { method: 'GET', path, headers: { AUTHTOKEN: s.adminToken } });
    const pki = (method: string, op: string, details: Record<string, unknown>) =>
      rawRequest(s.pkiUrl, { method, path: `/api/pki/restapi/${op}?INPUT_DATA=${encodeURIComponent(inputData(details))}`, headers: { AUTHTOKEN: s.adminToken } });
    for (const answer of [
      await own(`/restapi/json/v1/resources/${resource.id}/accounts/${account.id}/password`),
      await own(`/restapi/json/v1/resources`),
      await pki('GET', 'getAllSSHKeys', {}),
      await pki('GET', 'getCertificate', { common_name: 'tz.example.test' }),
      await pki('GET', 'getCertificate', { common_name: 'tz.example.test', fileType: 'DER' }),
      await pki('POST', 'exportKeyStoreKey', { keyName: 'tz-vault-key' }),
    ]) {
      expect({ answer: answer.text.slice(0, 200), carries: carriesMarker(victim, answer.body) }).toEqual({ answer: answer.text.slice(0, 200), carries: true });
    }
  });
});

/** Runs `each` over the items, `width` at a time. */
async function inBatches<T>(items: T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(each));
}

function carriesMarker(victim: Victim, body: Buffer): boolean {
  return victim.markers.some((m) => body.includes(m));
}

/** The first organisation's objects a request may name: each table with its name column. */
const NAMED_OBJECTS = [
  ['resources', 'name'], ['users', 'username'], ['ssh_keys', 'name'], ['certificates', 'common_name'], ['certificate_authorities', 'name'],
  ['key_vault_keys', 'name'], ['user_groups', 'name'], ['resource_groups', 'name'], ['csrs', 'common_name'],
] as const;

async function maxAuditId(s: TestServices): Promise<number> {
  const [row] = await s.dataSource.query('SELECT coalesce(max(id), 0)::bigint AS id FROM audit');
  return Number(row.id);
}

/**
 * The first organisation (Default): resources with notes and passwords, shared with a user of
 * its own directly, through a user group and through a resource group (under access control),
 * an SSH key, a CA and a certificate it signed, a CSR, a key vault file. Its
 * markers are what only it holds: none is ever input to the other organisation's requests.
 */
async function seedVictim(s: TestServices): Promise<Victim> {
  const [org] = await s.dataSource.query(`SELECT id, name FROM organizations WHERE name = 'Default'`);
  const markers: string[] = [];
  const member = await createApiUser(s.dataSource, { orgId: org.id, username: 'first-member', role: 'Password User' });
  for (let i = 1; i <= 3; i++) {
    const note = `first-org-note-${i}-7d1c93`;
    const made = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: `tz-res-${i}`, ACCOUNTNAME: `tz-acct-${i}`, RESOURCEDESCRIPTION: note });
    markers.push(note, made.password);
    // Its own user reaches each resource another way: a share, a user group's share, a resource group's share (under access control).
    if (i === 1) {
      const shared = await request(s.vaultUrl).put(`/restapi/json/v1/resources/${made.resourceId}/share`).set('AUTHTOKEN', s.adminToken)
        .type('form').send({ INPUT_DATA: inputData({ ACCESSTYPE: 'view', USERID: String(member.userId) }) });
      expect(shared.body.operation.result.status).toBe('Success');
    }
    if (i === 2) await shareToNewUserGroup(s.dataSource, org.id, 'tz-user-group', member.userId, { resourceId: made.resourceId, level: 'view' });
    if (i === 3) {
      await newStaticGroupWith(s.dataSource, org.id, 'tz-resource-group', made.resourceId, { shareTo: { userId: member.userId, level: 'view' } });
      await putUnderAccessControl(s.dataSource, made.resourceId);
    }
  }
  const pki = (op: string, details: Record<string, unknown>) =>
    request(s.pkiUrl).post(`/api/pki/restapi/${op}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
  for (const [op, details] of [
    ['createsshkey', { keyName: 'tz-key', keyType: 'ed25519' }],
    ['createCA', { caName: 'tz-ca', caType: 'root', CNAME: 'First Org Root 5be0', ALG: 'EC', LEN: '256' }],
    ['createCertificate', { CNAME: 'tz.example.test', ALG: 'EC', LEN: '256', CA_NAME: 'tz-ca' }],
    ['createCSR', { CNAME: 'tz-csr.example.test', ALG: 'EC', LEN: '256', PASSWORD: 'First-Org-Csr-9c2e' }],
  ] as const) {
    const res = await pki(op, details);
    expect(res.body.result.status ?? res.body.result.Status).toBe('Success');
  }
  const vaultFile = 'first-org-key-vault-content-41aa';
  const stored = await request(s.pkiUrl).post('/api/pki/restapi/addKeyStoreKey').set('AUTHTOKEN', s.adminToken)
    .field('INPUT_DATA', inputData({ keyName: 'tz-vault-key' })).attach('File', Buffer.from(vaultFile), 'k.bin');
  expect(stored.body.result.Status).toBe('Success');
  markers.push(vaultFile, 'First Org Root 5be0', 'First-Org-Csr-9c2e');
  for (const key of await s.dataSource.query('SELECT public_key, fingerprint FROM ssh_keys WHERE org_id = $1', [org.id])) {
    markers.push(key.fingerprint, key.public_key.split(' ')[1].slice(20, 80));
  }
  const certs = await s.dataSource.query(
    `SELECT certificate_pem FROM certificates WHERE org_id = $1 UNION ALL SELECT certificate_pem FROM certificate_authorities WHERE org_id = $1
     UNION ALL SELECT csr_pem FROM csrs WHERE org_id = $1`,
    [org.id],
  );
  const binary: Buffer[] = [];
  for (const cert of certs) {
    const der = Buffer.from(cert.certificate_pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    markers.push(der.toString('base64').slice(0, 60));
    binary.push(der.subarray(0, 48));
  }
  expect(certs.length).toBe(3);
  // Every object's id and name (accounts through their resources), as the sweep's values.
  const objects = NAMED_OBJECTS.map(([table, name]) => `SELECT id, ${name} AS name FROM ${table} WHERE org_id = $1`);
  const rows: { id: number; name: string }[] = await s.dataSource.query(
    `${objects.join(' UNION ')} UNION SELECT a.id, a.name FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.org_id = $1`,
    [org.id],
  );
  const accounts: { rid: number; aid: number; rname: string; aname: string }[] = await s.dataSource.query(
    'SELECT r.id AS rid, a.id AS aid, r.name AS rname, a.name AS aname FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.org_id = $1',
    [org.id],
  );
  return {
    orgId: org.id,
    pairs: accounts.flatMap((a): [string, string][] => [[String(a.rid), String(a.aid)], [a.rname, a.aname]]),
    orgName: org.name,
    markers: [...markers.map((m) => Buffer.from(m)), ...binary],
    world: { ids: [...new Set(rows.map((r) => r.id))].sort((a, b) => a - b), names: [...new Set(rows.map((r) => r.name))] },
  };
}
