import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuditSealer, AuditWriter, verifyAuditChain } from '@app/audit';
import { Keyring } from '@app/crypto';
import { createDataSource } from '@app/persistence';
import { createTestDatabase } from '../support/database';

// Migration AuditSealsAndCounts on a database with a sealed trail: down moves the links back
// into the audit rows, up moves them out again and rebuilds the per-hour counts; the chain
// verifies on both sides of the round trip.
describe('migration AuditSealsAndCounts', () => {
  let ds: DataSource;
  let keyring: Keyring;
  beforeAll(async () => {
    ds = createDataSource(await createTestDatabase(), 2);
    await ds.initialize();
    keyring = new Keyring(ds, randomBytes(32));
    await keyring.load();
  });
  afterAll(() => ds.destroy());

  it('keeps the chain and rebuilds the counts', async () => {
    const [org] = await ds.query(`INSERT INTO organizations (name) VALUES ('migrated') RETURNING id`);
    const writer = new AuditWriter(ds);
    for (let i = 0; i < 30; i++) await writer.record({ category: i % 3 ? 'Resource' : 'User', operation: `Event ${i}`, orgId: org.id });
    // Waits for every transaction of the cluster: generous, as other databases share the server.
    await new AuditSealer(ds, keyring).sealNow(60_000);
    const counts = () => ds.query('SELECT org_id, category, hour::text, rows::int FROM audit_counts ORDER BY 1, 2, 3');
    const before = await counts();
    expect(before.reduce((n: number, c: { rows: number }) => n + c.rows, 0)).toBe(30);

    // Undone together with any later migration (merged after this one).
    const applied = async () => (await ds.query(`SELECT 1 FROM migrations WHERE name = 'AuditSealsAndCounts1795310000000'`)).length > 0;
    while (await applied()) await ds.undoLastMigration({ transaction: 'each' });
    const [{ sealed }] = await ds.query('SELECT count(*)::int AS sealed FROM audit WHERE chain_hash IS NOT NULL AND chain_prev IS NOT NULL');
    expect(sealed).toBe(30);

    await ds.runMigrations({ transaction: 'each' });
    expect(await counts()).toEqual(before);
    expect(await verifyAuditChain(ds, keyring)).toMatchObject({ ok: true, checked: 30, unsealed: 0 });
  });
});
