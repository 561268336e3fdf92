import 'reflect-metadata';
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Keyring, parseKeyMaterial } from '@app/crypto';
import { createDataSource, runMigrations } from '@app/persistence';
import { createApiUser } from '@app/server';
import { benchDatabase, startServer, stopServer } from './support';

// The password read through the full server (TLS off) beside a minimal node:http + pg
// program doing the same work on the same database, one after the other in one run.
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export async function main(): Promise<Figures[]> {
  const db = await benchDatabase();
  const masterKey = randomBytes(32).toString('hex');
  try {
    await runMigrations(db.url);
    const ds = createDataSource(db.url, 2);
    await ds.initialize();
    const { token, path } = await seed(ds, masterKey);
    await ds.destroy();
    const env = { DATABASE_URL: db.url, MASTER_KEY: masterKey, DB_POOL_SIZE: '20' };
    const results: Figures[] = [];
    for (const [name, script] of [
      ['plain node:http + pg', 'plain-server.js'],
      ['full server', 'full-server.js'],
    ]) {
      const { port, child } = await startServer(script, env);
      try {
        const url = `http://127.0.0.1:${port}${path}`;
        await load(url, token, 2); // warm-up: JIT, prepared statements, pool
        results.push({ name, ...(await load(url, token, SECONDS)) });
      } finally {
        await stopServer(child);
      }
    }
    print(results);
    return results;
  } finally {
    await db.drop();
  }
}

async function seed(ds: DataSource, masterKey: string): Promise<{ token: string; path: string }> {
  const keyring = new Keyring(ds, parseKeyMaterial(masterKey));
  await keyring.load();
  const [org] = await ds.query(`INSERT INTO organizations (name) VALUES ('Default') RETURNING id`);
  const { userId, token } = await createApiUser(ds, { orgId: org.id, username: 'bench', role: 'Administrator' });
  const [resource] = await ds.query(
    `INSERT INTO resources (org_id, owner_id, name, name_key, type) VALUES ($1, $2, 'db', 'db', 'Linux') RETURNING id`,
    [org.id, userId],
  );
  const [account] = await ds.query(
    `INSERT INTO accounts (resource_id, name, name_key, password) VALUES ($1, 'root', 'root', $2) RETURNING id`,
    [resource.id, keyring.seal('Bench-Password-123!', 'accounts.password')],
  );
  return { token, path: `/restapi/json/v1/resources/${resource.id}/accounts/${account.id}/password` };
}

async function load(url: string, token: string, seconds: number): Promise<Omit<Figures, 'name'>> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers: { AUTHTOKEN: token } });
  const bad = result.errors + result.timeouts + result.non2xx;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: bad };
}

function print(results: Figures[]): void {
  console.log(`\nPassword read, ${CONNECTIONS} connections, ${SECONDS} s each`);
  console.log('program                  req/s     p50 ms   p99 ms   errors');
  for (const r of results) {
    console.log(`${r.name.padEnd(24)} ${r.rps.toFixed(0).padStart(6)}   ${String(r.p50).padStart(6)}   ${String(r.p99).padStart(6)}   ${r.errors}`);
  }
  const [plain, full] = results;
  console.log(`ratio full/plain: ${(full.rps / plain.rps).toFixed(2)}`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
