import { DataSource } from 'typeorm';
import { FailedAuthLedger } from './failed-auth-ledger';

/** A data source whose statements wait until released, recording what ran. */
function heldDataSource() {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const ran: string[] = [];
  const query = async (sql: string) => {
    await held;
    ran.push(sql.trim().split(/\s+/).slice(0, 2).join(' '));
    return [];
  };
  const dataSource = { query, transaction: async (work: (m: { query: typeof query }) => Promise<unknown>) => work({ query }) };
  return { dataSource: dataSource as unknown as DataSource, release, ran };
}

async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('FailedAuthLedger at shutdown', () => {
  afterEach(() => jest.useRealTimers());

  it('waits for a failure being counted before the pool may close', async () => {
    const { dataSource, release, ran } = heldDataSource();
    const ledger = new FailedAuthLedger(dataSource);
    const written = ledger.record({ ip: '127.0.0.1', description: 'GET /x: unknown token' });
    const destroyed = Promise.resolve(ledger.onModuleDestroy());
    expect(await settled(destroyed)).toBe(false);
    release();
    await destroyed;
    await written;
    expect(ran).toEqual(['SELECT pg_advisory_xact_lock($1)', 'WITH pick']);
  });

  it("waits for the timer's flush under way, and starts no second one beside it", async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { dataSource, release, ran } = heldDataSource();
    const ledger = new FailedAuthLedger(dataSource);
    const flush = jest.spyOn(ledger, 'flush');
    ledger.onModuleInit();
    jest.advanceTimersByTime(20_000);
    expect(flush).toHaveBeenCalledTimes(1);
    const destroyed = Promise.resolve(ledger.onModuleDestroy());
    expect(await settled(destroyed)).toBe(false);
    release();
    await destroyed;
    expect(ran).toEqual(['WITH due']);
  });
});
