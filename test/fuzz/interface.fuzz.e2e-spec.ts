import fc from 'fast-check';
import request from 'supertest';
import { routedPath, RouteMatcher } from '@app/http';
import { startTestServices, createUserWithToken, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { installLoopbackFence } from '../support/loopback-fence';
import { rawRequest } from '../support/raw-http';
import { describeRequest, FuzzRequest, fuzzRequest, FuzzWorld } from './arbitraries';
import { changedTables, WriteCounter } from './db-snapshot';
import { answerProblems, isFileAnswer, resultStatus, serverProblems } from './oracle';
import { protocolVerdict } from './protocol-oracle';
import { allDtoFields, FuzzRoute, fuzzRoutes, Service } from './route-model';

/*
 * Property-based fuzzing of every route of both services (the list the permission
 * snapshot walks) with generated input. For each request: never a 5xx, never a stack trace
 * or internal message, the envelope of the route's layout (or, for a route declared by
 * @ProtocolOperation, a well-formed answer of its protocol: ACME problem documents, DER OCSP
 * responses), a Failed answer changed nothing in the database (an ACME refusal only issues its
 * fresh nonce), and /health keeps answering. CI runs FUZZ_RUNS cases (default 2,000, half
 * per service); `npm run fuzz -- --runs 100000` runs the long campaign. FUZZ_SEED replays a run.
 */
const RUNS = Math.ceil(Number(process.env.FUZZ_RUNS ?? 2000) / 2);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

// A refused request may still write these, on purpose:
const MAY_CHANGE_ON_FAILURE = [
  'audit', // refusals worth auditing (denied reads, failed logins) are audited
  'audit_chain',
  'audit_checkpoints', // the sealer's background work
  'audit_seals',
  'audit_counts',
  'failed_auth_sources', // failed logins counted per source (FailedAuthLedger)
  'api_tokens', // last use of the token
];

describe('fuzzing the whole interface', () => {
  const fence = installLoopbackFence();
  let s: TestServices;
  let world: FuzzWorld;
  let writes: WriteCounter;
  const routes: Record<Service, FuzzRoute[]> = { vault: [], pki: [] };
  const stats = { cases: 0, failed: 0, success: 0, byStatus: new Map<number, number>() };

  beforeAll(async () => {
    s = await startTestServices({ SWEEP_INTERVAL_MS: '3600000', MAX_FILE_SIZE: '65536' });
    for (const service of ['vault', 'pki'] as const) routes[service] = fuzzRoutes(s[service], service);
    world = await seedWorld(s);
    // A discovery job an earlier request started updates its row while it runs, under whatever case comes next.
    writes = new WriteCounter(s.dataSource, MAY_CHANGE_ON_FAILURE, ['jobs']);
    await writes.install();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    fence.lift();
    console.log(
      `fuzz (seed ${SEED}): ${stats.cases} cases, ${stats.success} Success, ${stats.failed} Failed; HTTP ${JSON.stringify(Object.fromEntries(stats.byStatus))}; ` +
        `connections refused by the loopback fence: ${fence.refused.length}`,
    );
  });

  it.each(['vault', 'pki'] as const)('%s: every answer is an envelope, never a 5xx, and a Failed answer writes nothing', async (service) => {
    const problems = new Map<string, string>();
    const base = service === 'vault' ? s.vaultUrl : s.pkiUrl;
    const matcher = new RouteMatcher(routes[service]);
    let before = await writes.take();
    await fc.assert(
      fc.asyncProperty(fuzzRequest(routes[service], world), async (req) => {
        const route = actualRoute(matcher, req);
        const started = performance.now();
        // Each case from its own loopback address: the failed-authentication throttle is per address.
        const localAddress = `127.1.${(stats.cases >> 8) & 255}.${(stats.cases & 255) || 1}`;
        const answer = await rawRequest(base, { method: req.method, path: req.path, headers: req.headers, body: req.body, localAddress });
        const took = performance.now() - started;
        if (process.env.FUZZ_DEBUG && took > 300) console.log(`slow ${Math.round(took)} ms: ${route.method} ${route.path} → ${answer.text.slice(0, 120)}`);
        // Protocol routes (ACME, OCSP) answer in their protocol; the others with an envelope.
        const protocol = protocolVerdict(route, req.method, answer);
        const found = protocol ? [...serverProblems(answer), ...protocol.problems] : answerProblems(route, req.method, answer);
        // A served file or text (getPGPKey makes the key on first use) is a success.
        const status = protocol?.status ?? resultStatus(answer.json) ?? (isFileAnswer(answer) ? 'Success' : undefined);
        const after = await writes.take();
        if (status !== 'Success') {
          const changed = changedTables(before, after).filter((t) => !protocol?.mayChangeOnFailure.includes(t));
          if (changed.length > 0) found.push(`a ${status ?? 'non-envelope'} answer changed ${changed.join(', ')}`);
        }
        before = after;
        count(stats, answer.status, status);
        if (++stats.cases % 50 === 0) found.push(...(await healthProblems(base)));
        for (const problem of found) {
          const key = `${route.method} ${route.path}: ${problem}`;
          if (!problems.has(key)) problems.set(key, `${key}\n    ${describeRequest(req)}\n    → ${answer.status} ${answer.text.slice(0, 300)}`);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(await healthProblems(base)).toEqual([]);
    // The seed replays the same requests: FUZZ_SEED=<seed> npx jest test/fuzz
    expect({ seed: SEED, problems: [...problems.values()] }).toEqual({ seed: SEED, problems: [] });
  }, 60_000 + RUNS * 500);
});

/**
 * The route that served the request, judged by its answer: a request sent with another method,
 * or on a path with another segment, may match another route (GET /ocsp/:ca/x is the OCSP GET,
 * not POST /ocsp/:ca), on the path the router sees (a trailing /AUTHTOKEN=... taken off). A
 * path that matches none keeps the route it was made for.
 */
function actualRoute(matcher: RouteMatcher<FuzzRoute>, req: FuzzRequest): FuzzRoute {
  return matcher.match(req.method, routedPath(req.path.split('?')[0]).path) ?? req.route;
}

async function healthProblems(base: string): Promise<string[]> {
  const health = await rawRequest(base, { method: 'GET', path: '/health' });
  return health.status === 200 ? [] : [`/health answered ${health.status}: ${health.text.slice(0, 200)}`];
}

function count(stats: { failed: number; success: number; byStatus: Map<number, number> }, http: number, status?: string): void {
  stats.byStatus.set(http, (stats.byStatus.get(http) ?? 0) + 1);
  if (status === 'Success') stats.success++;
  else stats.failed++;
}

/** Rows for the generated requests to hit: resources with accounts, users of other roles, a key, a CA. */
async function seedWorld(s: TestServices): Promise<FuzzWorld> {
  for (let i = 1; i <= 3; i++) await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: `fz-res-${i}`, ACCOUNTNAME: `fz-acct-${i}` });
  const others = [];
  for (const role of ['Password User', 'Password Auditor', 'Password Administrator']) {
    others.push((await createUserWithToken(s, `fz-${role.split(' ')[1].toLowerCase()}`, role)).token);
  }
  const pki = (op: string, details: Record<string, unknown>) =>
    request(s.pkiUrl).post(`/api/pki/restapi/${op}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
  await pki('createsshkey', { keyName: 'fz-key', keyType: 'ed25519' });
  await pki('createCA', { caName: 'fz-ca', caType: 'root', CNAME: 'Fuzz Root CA', ALG: 'EC', LEN: '256' });
  await pki('createCertificate', { CNAME: 'fz.example.test', ALG: 'EC', LEN: '256', CA_NAME: 'fz-ca' });
  const names: { name: string }[] = await s.dataSource.query(
    `SELECT name FROM resources UNION SELECT name FROM accounts UNION SELECT username FROM users UNION SELECT name FROM ssh_keys
     UNION SELECT name FROM certificate_authorities UNION SELECT common_name FROM certificates`,
  );
  return {
    ids: [1, 2, 3, 4, 5],
    names: names.map((n) => n.name),
    tokens: { admin: s.adminToken, others },
    fieldPool: allDtoFields(),
  };
}
