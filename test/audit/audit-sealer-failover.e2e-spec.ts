import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuditSealer, AuditWriter, verifyAuditChain } from '@app/audit';
import { Keyring } from '@app/crypto';
import { createDataSource } from '@app/persistence';
import { createTestDatabase } from '../support/database';

/**
 * The sealer reads a horizon (an id bound and the running transactions) on one tick and seals
 * up to it on a later one. Across a failover the horizon may come from the old leader, which
 * handed out ids the new leader never saw and will hand out again: sealing up to that bound
 * would pass rows still being written and leave them out of the chain for good.
 */
describe('audit sealer across a failover', () => {
  let ds: DataSource;
  let keyring: Keyring;
  beforeAll(async () => {
    ds = createDataSource(await createTestDatabase(), 3);
    await ds.initialize();
    keyring = new Keyring(ds, randomBytes(32));
    await keyring.load();
  });
  afterAll(() => ds.destroy());

  it('drops a horizon whose bound the sequence has not reached, and seals every row', async () => {
    const [org] = await ds.query(`INSERT INTO organizations (name) VALUES ('failover') RETURNING id`);
    const writer = new AuditWriter(ds);
    const sealer = new AuditSealer(ds, keyring);
    for (let i = 0; i < 3; i++) await writer.record({ category: 'User', operation: `Before ${i}`, orgId: org.id });
    await sealer.sealNow(60_000);

    // A row being written (its transaction open), then a later row committed.
    const runner = ds.createQueryRunner();
    await runner.startTransaction();
    await writer.record({ category: 'User', operation: 'In flight', orgId: org.id }, runner.manager);
    await writer.record({ category: 'User', operation: 'After', orgId: org.id });
    // The horizon read on the old leader: ids far beyond what this node's sequence handed out.
    const [{ last }] = await ds.query(`SELECT last_value::text AS last FROM audit_id_seq`);
    const state = sealer as unknown as { pending?: { bound: string; running: string[] }; tick(): Promise<void> };
    state.pending = { bound: String(BigInt(last) + 1000n), running: [] };
    await state.tick();
    await runner.commitTransaction();
    await runner.release();

    await sealer.sealNow(60_000);
    const report = await verifyAuditChain(ds, keyring);
    expect(report.problem).toBeUndefined();
    expect(report).toMatchObject({ ok: true, checked: 5, unsealed: 0 });
  });
});
