import { request as httpRequest } from 'node:http';
import { FailedAuthLedger, OVERFLOW_SOURCE, SOURCE_LIMIT, sourceOf } from '@app/auth';
import { AUTH_FAILED_MESSAGE } from '@app/http';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';

/** One bad-token GET from `localAddress`; resolves the result message. */
function badToken(baseUrl: string, localAddress: string, token = 'bad'.repeat(20)): Promise<string> {
  const url = new URL(`${baseUrl}/api/pki/restapi/getAllSSHKeys`);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers: { AUTHTOKEN: token }, agent: false, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        resolve((body.operation?.result ?? body.result).message);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

interface Row {
  ip: string;
  org_id: number | null;
  actor_name: string;
  description: string;
}
const rowsFrom = (s: TestServices, ip: string): Promise<Row[]> =>
  s.dataSource.query(`SELECT ip, org_id, actor_name, description FROM audit WHERE operation = 'Authentication Failed' AND ip = $1 ORDER BY id`, [ip]);
/** The failures a row stands for: its count, or 1 for a row of one failure. */
const countOf = (row: Row) => Number(/^(\d+) failed authentications from /.exec(row.description)?.[1] ?? 1);

describe('failed logins cannot flood the audit', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(async () => {
    await s?.close();
  });
  /** Both services: two instances, each with its own throttle and ledger, on one database. */
  const flushAll = () => s.vault.get(FailedAuthLedger).flush('0 seconds');

  it('1,000 parallel bad-token requests from one address, over two instances, write at most 5 rows whose counts add up to 1,000', async () => {
    const ip = '127.4.0.1';
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => badToken(i % 2 ? s.vaultUrl : s.pkiUrl, ip)));
    expect(new Set(answers)).toEqual(new Set([AUTH_FAILED_MESSAGE]));
    // This file's first failures: every Authentication Failed row so far is theirs.
    const [{ n }] = await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE operation = 'Authentication Failed'`);
    expect(n).toBeLessThanOrEqual(5);
    const before = await rowsFrom(s, ip);
    expect(before.length).toBeGreaterThanOrEqual(1);
    expect(before[0]).toMatchObject({ org_id: null, description: `GET /api/pki/restapi/getAllSSHKeys: ${AUTH_FAILED_MESSAGE}` });

    await flushAll();
    const rows = await rowsFrom(s, ip);
    expect(rows.length).toBeLessThanOrEqual(5);
    expect(rows.reduce((sum, row) => sum + countOf(row), 0)).toBe(1000);
    // Nothing left held: a second flush writes nothing more.
    await flushAll();
    expect(await rowsFrom(s, ip)).toHaveLength(rows.length);
  });

  it('the first failure of a source is written at once; after the window the next one writes the held count with itself', async () => {
    const ip = '127.4.0.2';
    await badToken(s.vaultUrl, ip);
    expect((await rowsFrom(s, ip)).map(countOf)).toEqual([1]);
    for (let i = 0; i < 4; i++) await badToken(s.vaultUrl, ip);
    expect(await rowsFrom(s, ip)).toHaveLength(1);
    // A minute passes.
    await s.dataSource.query(`UPDATE failed_auth_sources SET audited_at = audited_at - interval '61 seconds' WHERE source = $1`, [ip]);
    await badToken(s.pkiUrl, ip);
    const rows = await rowsFrom(s, ip);
    expect(rows.map(countOf)).toEqual([1, 5]);
    expect(rows[1].description).toMatch(new RegExp(`^5 failed authentications from ${ip.replace(/\./g, '\\.')} since .+Z; the last: GET /api/pki/restapi/getAllSSHKeys: `));
  });

  it('a locked user’s failures are their own source, in their organisation, named', async () => {
    const ip = '127.4.0.3';
    const locked = await createUserWithToken(s, 'flood-locked', 'Password User');
    await s.dataSource.query(`UPDATE users SET locked = true WHERE id = $1`, [locked.id]);
    await badToken(s.vaultUrl, ip);
    await Promise.all(Array.from({ length: 20 }, () => badToken(s.vaultUrl, ip, locked.token)));
    await flushAll();
    const rows = await rowsFrom(s, ip);
    const mine = rows.filter((r) => r.actor_name === 'flood-locked');
    expect(mine.length).toBeLessThanOrEqual(2);
    expect(mine.reduce((sum, row) => sum + countOf(row), 0)).toBe(20);
    expect(mine[0]).toMatchObject({ org_id: expect.any(Number), description: expect.stringContaining('locked') });
    expect(rows.filter((r) => r.actor_name === '').map(countOf)).toEqual([1]);
  });
});

describe('failed logins from many addresses are bounded as a whole (issue 33)', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('1,000 bad-token requests from 100 addresses write at most 10 audit rows and a bounded ledger, counts adding up', async () => {
    const addresses = Array.from({ length: 100 }, (_, i) => `127.5.0.${i + 1}`);
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => badToken(i % 2 ? s.vaultUrl : s.pkiUrl, addresses[i % 100])));
    expect(new Set(answers)).toEqual(new Set([AUTH_FAILED_MESSAGE]));
    const all = (): Promise<Row[]> => s.dataSource.query(`SELECT ip, org_id, actor_name, description FROM audit WHERE operation = 'Authentication Failed' ORDER BY id`);
    expect((await all()).length).toBeLessThanOrEqual(10);
    const [{ n }] = await s.dataSource.query('SELECT count(*)::int AS n FROM failed_auth_sources');
    expect(n).toBeLessThanOrEqual(SOURCE_LIMIT + 1);
    await s.vault.get(FailedAuthLedger).flush('0 seconds');
    const rows = await all();
    expect(rows.length).toBeLessThanOrEqual(2 * (SOURCE_LIMIT + 1));
    expect(rows.reduce((sum, row) => sum + countOf(row), 0)).toBe(1000);
    expect(rows.some((row) => row.ip === OVERFLOW_SOURCE)).toBe(true);
  });

  it('an IPv6 client is one /64', () => {
    expect(sourceOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('::1')).toBe('0:0:0:0::/64');
    expect(sourceOf('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(sourceOf('127.5.0.9')).toBe('127.5.0.9');
  });
});
