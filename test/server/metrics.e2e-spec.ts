import { execFileSync } from 'node:child_process';
import request from 'supertest';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';

/** One sample line of the text exposition format. */
interface SampleLine {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): SampleLine[] {
  const out: SampleLine[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`Not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:\\.|[^"\\])*)"/g)) labels[k] = v;
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

function value(samples: SampleLine[], name: string, labels: Record<string, string> = {}): number | undefined {
  const hit = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return hit.length ? hit.reduce((sum, s) => sum + s.value, 0) : undefined;
}

/** Prometheus's own parser and linter over the exposition. */
function promtool(text: string): string {
  return execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

describe('GET /metrics (Prometheus)', () => {
  let s: TestServices;
  const scrape = async (base: string, token = s.adminToken) => {
    const res = await request(base).get('/metrics').set('AUTHTOKEN', token);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return res.text;
  };

  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  it('needs a token with metrics.read: 401 with a Bearer challenge without one, 403 to a role without it', async () => {
    for (const base of [s.vaultUrl, s.pkiUrl]) {
      for (const res of [await request(base).get('/metrics'), await request(base).get('/metrics').set('Authorization', 'Bearer not-a-token')]) {
        // As a scraper expects it: an authentication error, not a 200 it would fail to parse.
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
        expect(res.text).toContain('Authentication failed');
        expect(res.text).not.toContain('credvault_');
      }
    }
    const user = await createUserWithToken(s, 'metrics-pa', 'Password Administrator');
    const refused = await request(s.vaultUrl).get('/metrics').set('AUTHTOKEN', user.token);
    expect(refused.status).toBe(403);
    expect(refused.headers['www-authenticate']).toBeUndefined();
    expect(refused.text).toBe('Your role (Password Administrator) does not allow this operation\n');
    // Prometheus sends its credentials as a bearer token.
    const bearer = await request(s.pkiUrl).get('/metrics').set('Authorization', `Bearer ${s.adminToken}`);
    expect(bearer.text).toContain('credvault_http_requests_total');
  });

  it('passes promtool check metrics on both ports, with every metric the operators need', async () => {
    const vault = await scrape(s.vaultUrl);
    const pki = await scrape(s.pkiUrl);
    expect(promtool(vault)).toBe('');
    expect(promtool(pki)).toBe('');
    const common = [
      'credvault_http_requests_total',
      'credvault_http_request_duration_seconds_bucket',
      'credvault_db_pool_connections',
      'credvault_db_pool_waiting',
      'credvault_audit_rows',
      'credvault_audit_unsealed_rows',
      'credvault_audit_sealer_lag_seconds',
      'credvault_discovery_jobs_running',
      'credvault_ssh_key_pool_available',
      'nodejs_eventloop_lag_seconds',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
    ];
    const v = parseExposition(vault);
    const p = parseExposition(pki);
    for (const name of [...common, 'credvault_checkouts_in_use', 'credvault_password_requests_waiting']) expect([name, value(v, name)]).toEqual([name, expect.any(Number)]);
    for (const name of [...common, 'credvault_certificates']) expect([name, value(p, name)]).toEqual([name, expect.any(Number)]);
    expect(p.filter((x) => x.name === 'credvault_certificates').map((x) => x.labels.expires_within)).toEqual(['expired', '7d', '30d', '90d', 'later']);
    expect(value(v, 'credvault_db_pool_connections', { service: 'vault', state: 'in_use' })).toBeGreaterThanOrEqual(0);
    expect(value(p, 'credvault_http_requests_total', { service: 'pki' })).toBeGreaterThan(0);
  });

  it('moves the request counters by operation name and outcome, and the workflow gauges', async () => {
    const before = parseExposition(await scrape(s.vaultUrl));
    const r = await createResource(s.vaultUrl, s.adminToken);
    const path = `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    for (let i = 0; i < 3; i++) await request(s.vaultUrl).get(path).set('AUTHTOKEN', s.adminToken);
    await request(s.vaultUrl).get('/restapi/json/v1/resources/999999/accounts/1/password').set('AUTHTOKEN', s.adminToken);
    await request(s.vaultUrl).get('/restapi/json/v1/no/such/thing').set('AUTHTOKEN', s.adminToken);
    await request(s.pkiUrl).post('/api/pki/restapi/createCertificate').set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: JSON.stringify({ operation: { Details: { CNAME: 'metrics.example.test', VALIDITY: '5' } } }) });
    const text = await scrape(s.vaultUrl);
    const after = parseExposition(text);
    const delta = (name: string, labels: Record<string, string>) => (value(after, name, labels) ?? 0) - (value(before, name, labels) ?? 0);
    // The password read is served by the lean route: it is named from route metadata all the same.
    expect(delta('credvault_http_requests_total', { operation: 'GET PASSWORD', outcome: 'success' })).toBe(3);
    expect(delta('credvault_http_requests_total', { operation: 'GET PASSWORD', outcome: 'failed' })).toBe(1);
    expect(delta('credvault_http_requests_total', { operation: 'CREATE RESOURCE', outcome: 'success' })).toBe(1);
    expect(delta('credvault_http_requests_total', { operation: 'unmatched', outcome: 'not_found' })).toBe(1);
    expect(delta('credvault_http_request_duration_seconds_count', { operation: 'GET PASSWORD' })).toBe(4);
    expect(delta('credvault_audit_rows', {})).toBeGreaterThanOrEqual(4);
    const pki = parseExposition(await scrape(s.pkiUrl));
    expect(value(pki, 'credvault_certificates', { expires_within: '7d' })).toBeGreaterThanOrEqual(1);
    expect(value(pki, 'credvault_http_requests_total', { operation: 'CreateCertificate', outcome: 'success' })).toBe(1);
    // No label carries a token, a password or a raw path.
    const labelValues = after.flatMap((x) => Object.values(x.labels));
    for (const secret of [s.adminToken, r.password]) expect(labelValues).not.toContain(secret);
    expect(text).not.toContain(s.adminToken);
    expect(text).not.toContain(r.password);
    expect(labelValues.filter((l) => l.includes('999999') || l.includes('no/such'))).toEqual([]);
    expect(promtool(text)).toBe('');
  });

  it('is public when METRICS_PUBLIC=true', async () => {
    const open = await startTestServices({ METRICS_PUBLIC: 'true' });
    try {
      const res = await request(open.vaultUrl).get('/metrics');
      expect(res.status).toBe(200);
      expect(res.text).toContain('credvault_http_requests_total');
    } finally {
      await open.close();
    }
  });
});
