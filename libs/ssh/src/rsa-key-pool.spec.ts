import { generateSshKey } from './generate';
import { RsaKeyPool } from './rsa-key-pool';

describe('RsaKeyPool', () => {
  let pool: RsaKeyPool;
  afterEach(() => pool.stop());

  it('fills up in the background and hands out ready keys at once', async () => {
    pool = new RsaKeyPool({ size: 3, modulusLength: 1024 });
    pool.start();
    await pool.whenFull();
    expect(pool.available).toBe(3);

    const key = await pool.take();
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(1024);
    expect(pool.available).toBe(2);
    await pool.whenFull();
    expect(pool.available).toBe(3);
  });

  it('never hands out the same key twice', async () => {
    pool = new RsaKeyPool({ size: 2, modulusLength: 1024 });
    pool.start();
    await pool.whenFull();
    const keys = await Promise.all([pool.take(), pool.take(), pool.take(), pool.take()]);
    const moduli = new Set(keys.map((key) => key.export({ format: 'jwk' }).n));
    expect(moduli.size).toBe(4);
  });

  it('still generates when stopped, and stop() empties it and waits for running work', async () => {
    pool = new RsaKeyPool({ size: 2, modulusLength: 1024 });
    pool.start();
    await pool.stop();
    expect(pool.available).toBe(0);
    const key = await pool.take();
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(pool.available).toBe(0);
  });

  it('with size 0 (SSH_KEY_POOL_SIZE=0) generates nothing ahead and still hands out keys', async () => {
    pool = new RsaKeyPool({ size: 0, modulusLength: 1024 });
    pool.start();
    await pool.whenFull();
    expect(pool.available).toBe(0);
    expect((await pool.take()).asymmetricKeyType).toBe('rsa');
    await pool.whenFull();
    expect(pool.available).toBe(0);
  });

  it('is used by generateSshKey for keys of its length only', async () => {
    pool = new RsaKeyPool({ size: 1, modulusLength: 1024 });
    pool.start();
    await pool.whenFull();

    const other = await generateSshKey({ type: 'rsa', length: 2048 }, { rsaPool: pool });
    expect(pool.available).toBe(1);
    const pooled = await generateSshKey({ type: 'rsa', length: 1024, comment: 'pooled' }, { rsaPool: pool });
    expect(pool.available).toBe(0);
    expect([other.length, pooled.length]).toEqual([2048, 1024]);
  });
});
