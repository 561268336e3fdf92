import { AuditSealer, AuditWriter } from '@app/audit';
import { startTestServices, TestServices } from '../support/app';

/**
 * sealNow seals up to the horizon it observed, even when another instance takes the chain
 * between its observation and its sealing (the sealer takes the chain's row with SKIP LOCKED):
 * it used to return with nothing sealed, and a caller reading the seals next (a test,
 * `verify-audit --seal`) found none. Seen as a flaky failure of test/vault/audit.e2e-spec.ts in
 * a clean-clone run under load, where the pki service's own sealer was that other instance.
 */
describe('sealNow and another instance sealing', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s?.close());

  it('waits while another instance holds the chain, then seals the rows it observed', async () => {
    await s.vault.get(AuditSealer).sealNow(); // the chain's row exists from the first seal on
    expect(await s.dataSource.query('SELECT id FROM audit_chain')).toEqual([{ id: 1 }]);
    // The other instance's sealing transaction: it holds the chain from before the row is written.
    const other = s.dataSource.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    await other.query('SELECT 1 FROM audit_chain WHERE id = 1 FOR UPDATE');
    const [{ xid }] = await other.query('SELECT pg_current_xact_id()::text AS xid');
    const id = await new AuditWriter(s.dataSource).record({ category: 'User', operation: 'Sealed Later' });
    // As if this instance had observed just before the other one began: its transaction is not
    // among those this sealNow waits for, so it goes straight to the chain and finds it taken.
    const sealer = s.vault.get(AuditSealer) as unknown as { observe(): Promise<{ bound: string; running: string[] }> };
    const observe = sealer.observe.bind(sealer);
    jest.spyOn(sealer, 'observe').mockImplementationOnce(async () => {
      const horizon = await observe();
      return { ...horizon, running: horizon.running.filter((x) => x !== xid) };
    });
    let done = false;
    const sealing = s.vault.get(AuditSealer).sealNow().then(() => (done = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    await other.commitTransaction();
    await other.release();
    await sealing;
    expect(await s.dataSource.query('SELECT 1 FROM audit_seals WHERE audit_id = $1', [id])).toHaveLength(1);
  });
});
