import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '@app/config';
import { COMMANDS } from '../../scripts/admin/commands';
import { openAdminContext } from '../../scripts/admin/context';
import { parseArgs } from '../../scripts/admin/args';
import { createTestDatabase } from '../support/database';
import { createResource } from '../support/factories';
import { startTestServices } from '../support/app';

/** Runs an admin command in-process, as `npm run admin -- ...` does; returns what it printed. */
async function admin(databaseUrl: string, env: Record<string, string>, ...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  const ctx = await openAdminContext(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'error', ...env }));
  try {
    const command = COMMANDS.find((c) => c.name === argv[0])!;
    await command.run(ctx, parseArgs(argv.slice(1)));
  } finally {
    log.mockRestore();
    await ctx.close();
  }
  return lines;
}

describe('admin command line', () => {
  const oldKey = randomBytes(32).toString('hex');

  it('create-api-user prints a working token last; list-users shows it; migrate is a no-op', async () => {
    const db = await createTestDatabase();
    const s = await startTestServices({ MASTER_KEY: oldKey }, db);
    try {
      const out = await admin(db, { MASTER_KEY: oldKey }, 'create-api-user', '--username', 'deployer', '--role', 'password user', '--hostname', '127.0.0.1');
      const token = out[out.length - 1];
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      const res = await request(s.vaultUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', token);
      expect(res.body.operation.result.status).toBe('Success');
      const [row] = await s.dataSource.query(`SELECT role, allowed_hosts FROM users WHERE username = 'deployer'`);
      expect(row).toEqual({ role: 'Password User', allowed_hosts: '127.0.0.1' });
      expect((await admin(db, {}, 'list-users')).join('\n')).toMatch(/deployer\tPassword User/);
      expect(await admin(db, {}, 'migrate')).toEqual(['The database is up to date.']);
      await expect(admin(db, {}, 'create-api-user', '--username', 'x', '--role', 'Boss')).rejects.toThrow(/--role must be one of/);
    } finally {
      await s.close();
    }
  });

  it('lock-user locks a named user (audited with its name) and refuses an unknown one', async () => {
    const db = await createTestDatabase();
    const s = await startTestServices({ MASTER_KEY: oldKey }, db);
    try {
      const token = (await admin(db, { MASTER_KEY: oldKey }, 'create-api-user', '--username', 'locked-one', '--role', 'Password User')).pop()!;
      expect(await admin(db, {}, 'lock-user', '--username', 'locked-one')).toEqual(['User locked-one locked.']);
      const res = await request(s.vaultUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', token);
      expect(res.body.operation.result.message).toMatch(/locked/);
      const audit = await s.dataSource.query(`SELECT target FROM audit WHERE operation = 'User Locked'`);
      expect(audit).toEqual([{ target: 'locked-one' }]);
      // TypeORM answers an UPDATE as [rows, count]: taken for the rows, an unknown name passed as locked.
      await expect(admin(db, {}, 'lock-user', '--username', 'nobody')).rejects.toThrow('No user named nobody');
    } finally {
      await s.close();
    }
  });

  it('rotate-master-key keeps every secret readable, without downtime, then --finish retires the old key', async () => {
    const db = await createTestDatabase();
    const before = await startTestServices({ MASTER_KEY: oldKey }, db);
    const r = await createResource(before.vaultUrl, before.adminToken, { PASSWORD: 'Before-Rotation-1' });
    const path = `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    const out = await admin(db, { MASTER_KEY: oldKey }, 'rotate-master-key');
    const newKey = /New master key .*: ([0-9a-f]{64})/.exec(out.join('\n'))![1];

    // The instance still on the old key keeps working, and can write with the new data key.
    expect((await request(before.vaultUrl).get(path).set('AUTHTOKEN', before.adminToken)).body.operation.Details.PASSWORD).toBe('Before-Rotation-1');
    const r2 = await createResource(before.vaultUrl, before.adminToken, { PASSWORD: 'During-Rotation-2' });
    await before.close();

    const after = await startTestServices({ MASTER_KEY: newKey }, db);
    try {
      const read = (res: typeof r) =>
        request(after.vaultUrl).get(`/restapi/json/v1/resources/${res.resourceId}/accounts/${res.accountId}/password`).set('AUTHTOKEN', before.adminToken);
      expect((await read(r)).body.operation.Details.PASSWORD).toBe('Before-Rotation-1');
      expect((await read(r2)).body.operation.Details.PASSWORD).toBe('During-Rotation-2');
      await admin(db, { MASTER_KEY: newKey }, 'rotate-master-key', '--finish');
      await expect(startTestServices({ MASTER_KEY: oldKey }, db)).rejects.toThrow(/master key does not match/);
      const audit = await after.dataSource.query(`SELECT * FROM audit WHERE operation = 'Master Key Rotated'`);
      expect(audit).toHaveLength(1);
      expect(JSON.stringify(audit)).not.toContain(newKey);
    } finally {
      await after.close();
    }
  });
});
