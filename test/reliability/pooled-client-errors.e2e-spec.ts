import { Client, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, pgPool } from '@app/persistence';
import { createTestDatabase } from '../support/database';

/**
 * PostgreSQL ends a connection (shutdown, restart, pg_terminate_backend: 57P01) while the
 * service holds it checked out between two queries. pg-pool takes its own 'error' listener
 * off a checked-out client, so without one of ours the error event goes unheard: an uncaught
 * exception that ends the process (found by test/reliability/database-outage under load).
 */
describe('a pooled connection ended by PostgreSQL while it is checked out', () => {
  let url: string;
  let ds: DataSource;

  beforeAll(async () => {
    url = await createTestDatabase();
    ds = await new DataSource(dataSourceOptions(url, 2)).initialize();
  });
  afterAll(() => ds?.destroy());

  it('is heard (no uncaught error event), dropped, and the pool carries on', async () => {
    const held: PoolClient = await pgPool(ds).connect();
    expect(held.listenerCount('error')).toBeGreaterThan(0);
    const [{ pid }] = (await held.query('SELECT pg_backend_pid() AS pid')).rows;
    const ended = new Promise((resolve) => held.once('end', resolve));

    const admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await admin.end();
    // The FATAL 57P01 message reaches the idle client, which emits 'error', then the socket ends.
    await ended;
    await expect(held.query('SELECT 1')).rejects.toThrow();
    held.release(new Error('terminated'));

    const [{ ok }] = await ds.query('SELECT 1 AS ok');
    expect(ok).toBe(1);
  });
});
