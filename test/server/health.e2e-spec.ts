import request from 'supertest';
import { Client } from 'pg';
import { createTestDatabase } from '../support/database';
import { startTestServices, TestServices } from '../support/app';
import { PgFaultProxy, ProxyMode, startPgFaultProxy } from '../support/pg-fault-proxy';

/**
 * GET /health answers 503 on every way the database can fail to serve, on both ports, and 200
 * again when it serves again, without a restart. The faults come from a proxy in front of the
 * test's database (refused, silent, or a FATAL error at connection start-up), and one is the
 * database itself closed to connections (ALLOW_CONNECTIONS false: 500 before).
 */
describe('GET /health follows the database', () => {
  let db: string;
  let proxy: PgFaultProxy;
  let s: TestServices;

  beforeAll(async () => {
    db = await createTestDatabase();
    proxy = await startPgFaultProxy(db);
    s = await startTestServices({ DB_CONNECT_TIMEOUT_MS: '1500', DB_POOL_SIZE: '2', LOG_LEVEL: 'error' }, proxy.url);
  });
  afterAll(async () => {
    await s?.close();
    await proxy?.close();
  });

  const health = async () => Promise.all([s.vaultUrl, s.pkiUrl].map(async (base) => {
    const res = await request(base).get('/health');
    return { status: res.status, body: res.body };
  }));
  const expectBoth = async (status: number) => {
    for (const res of await health()) expect(res.status).toBe(status);
  };

  const faults: [string, ProxyMode][] = [
    ['unreachable (connection refused)', { kind: 'refuse' }],
    ['no answer (timeout)', { kind: 'blackhole' }],
    ['too many connections', { kind: 'fatal', code: '53300', message: 'sorry, too many clients already' }],
    ['authentication failure', { kind: 'fatal', code: '28P01', message: 'password authentication failed for user "postgres"' }],
    ['refusing connections', { kind: 'fatal', code: '55000', message: 'database "x" is not currently accepting connections' }],
  ];

  it.each(faults)('503 while the database is %s, 200 when it is back', async (_name, mode) => {
    await expectBoth(200);
    proxy.set(mode);
    const started = Date.now();
    const answers = await health();
    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', reason: 'The database does not answer' });
    }
    expect(Date.now() - started).toBeLessThan(6000);
    proxy.set({ kind: 'forward' });
    await expectBoth(200);
  });

  it('503 while the database is closed to connections (ALLOW_CONNECTIONS false), 200 when it opens again', async () => {
    const name = new URL(db).pathname.slice(1);
    const admin = new URL(db);
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
      await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [name]);
      for (const res of await health()) expect(res.status).toBe(503);
      await client.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      await expectBoth(200);
    } finally {
      await client.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      await client.end();
    }
  });
});
