import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFirstAdmin } from '@app/server';
import { startTestServices, TestServices } from '../support/app';

// The first start makes the administrator (its login password hashed with bcrypt); every
// later start finds the organisation and returns at once, hashing nothing and writing no file.
describe('first administrator, on a later start', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  it('returns nothing, hashes no password, writes no file and adds no user', async () => {
    // The module's own exports (an `import * as` namespace would be a copy the code never calls).
    const hash = jest.spyOn(jest.requireActual<typeof import('bcrypt')>('bcrypt'), 'hash');
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-restart-'));
    const [before] = await s.dataSource.query('SELECT count(*)::int AS n FROM users');
    try {
      expect(await ensureFirstAdmin(s.dataSource, dataDir)).toBeUndefined();
      expect(hash).not.toHaveBeenCalled();
    } finally {
      hash.mockRestore();
    }
    expect(existsSync(join(dataDir, 'initial-admin-token'))).toBe(false);
    expect(existsSync(join(dataDir, 'initial-admin-password'))).toBe(false);
    expect(await s.dataSource.query('SELECT count(*)::int AS n FROM users')).toEqual([before]);
  });
});
