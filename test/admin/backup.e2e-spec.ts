import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '@app/config';
import { currentSchema } from '@app/persistence';
import { COMMANDS } from '../../scripts/admin/commands';
import { openAdminContext } from '../../scripts/admin/context';
import { parseArgs } from '../../scripts/admin/args';
import { createTestDatabase } from '../support/database';
import { createResource } from '../support/factories';
import { startTestServices, TestServices } from '../support/app';

const MASTER_KEY = randomBytes(32).toString('hex');

async function admin(databaseUrl: string, ...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  const ctx = await openAdminContext(loadConfig({ DATABASE_URL: databaseUrl, MASTER_KEY, LOG_LEVEL: 'error' }));
  try {
    const command = COMMANDS.find((c) => c.name === argv[0])!;
    await command.run(ctx, parseArgs(argv.slice(1), command.positional !== undefined));
  } finally {
    log.mockRestore();
    await ctx.close();
  }
  return lines;
}

/** Rewrites a backup's contents (uncompressed) with a fresh, valid checksum: a well-formed file that lies. */
function rewrite(file: string, out: string, edit: (text: string) => string): void {
  const text = gunzipSync(readFileSync(file)).toString();
  const body = edit(text.slice(0, text.lastIndexOf('SHA256 ')));
  writeFileSync(out, gzipSync(Buffer.from(`${body}SHA256 ${createHash('sha256').update(body).digest('hex')}\n`)));
}

/**
 * Issue 39: `backup FILE` and `restore FILE` with nothing to install (the driver's COPY, any
 * server major), a checksum and the schema version in the file, never the master key; restore
 * refuses a damaged or foreign file and a database that holds data, and proves what it restored.
 */
describe('admin backup and restore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'backup-'));
  const file = join(dir, 'vault.backup');
  let s: TestServices;
  let resource: Awaited<ReturnType<typeof createResource>>;

  beforeAll(async () => {
    s = await startTestServices({ MASTER_KEY });
    resource = await createResource(s.vaultUrl, s.adminToken);
    const cert = await request(s.pkiUrl).post('/api/pki/restapi/createCertificate').set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: JSON.stringify({ operation: { Details: { CNAME: 'backup.example.test', PASSWORD: 'Cert-Pass-1' } } }) });
    expect(cert.body.result.status).toBe('Success');
  });
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('backup FILE writes every table with its schema and checksum, never the master key, audited', async () => {
    const out = await admin(s.databaseUrl, 'backup', file);
    expect(out[0]).toMatch(new RegExp(`^Backed up \\d+ rows of \\d+ tables \\(schema ${currentSchema()}\\) to `));
    const text = gunzipSync(readFileSync(file)).toString();
    expect(text.startsWith('CREDVAULT-BACKUP 1\nHEADER {"schema":"')).toBe(true);
    expect(text).toMatch(/\nSHA256 [0-9a-f]{64}\n$/);
    expect(text).toContain('\nTABLE accounts [');
    expect(text).not.toContain(MASTER_KEY);
    expect(text).not.toContain(resource.password);
    expect(readFileSync(file).includes(Buffer.from(MASTER_KEY, 'hex'))).toBe(false);
    const [audit] = await s.dataSource.query(`SELECT actor_name, target, description FROM audit WHERE operation = 'Backup Created'`);
    expect(audit).toMatchObject({ actor_name: 'System', target: file, description: expect.stringMatching(/sha256 [0-9a-f]{64} \(admin CLI\)$/) });
  });

  it('restore FILE into an empty database proves it; the services start on it and read the same password', async () => {
    const target = await createTestDatabase();
    const out = await admin(target, 'restore', file);
    expect(out[0]).toMatch(new RegExp(`^Restored \\d+ rows \\(backup of .*, schema ${currentSchema()}\\)\\.$`));
    expect(out[1]).toMatch(/^Proved: \d+ sealed values decrypt with the master key; \d+ sealed audit rows verify/);
    const restored = await startTestServices({ MASTER_KEY }, target);
    try {
      const res = await request(restored.vaultUrl).get(`/restapi/json/v1/resources/${resource.resourceId}/accounts/${resource.accountId}/password`).set('AUTHTOKEN', s.adminToken);
      expect(res.body.operation.Details.PASSWORD).toBe(resource.password);
      const passphrase = await request(restored.pkiUrl).get('/api/pki/restapi/getCertificatePassphrase').set('AUTHTOKEN', s.adminToken)
        .query({ INPUT_DATA: JSON.stringify({ operation: { Details: { common_name: 'backup.example.test' } } }) });
      expect(passphrase.body.details).toEqual({ Passphrase: 'Cert-Pass-1' });
      // New rows continue after the restored ones: the sequences were restored too.
      const again = await createResource(restored.vaultUrl, s.adminToken);
      expect(again.resourceId).toBeGreaterThan(resource.resourceId);
      const [restoredAudit] = await restored.dataSource.query(`SELECT description FROM audit WHERE operation = 'Backup Restored'`);
      expect(restoredAudit.description).toMatch(/^restored from a backup of \S+ \(sha256 [0-9a-f]{16}\.\.\., admin CLI\)$/);
    } finally {
      await restored.close();
    }
  });

  it('restore --database NAME makes that database on the same server', async () => {
    const name = `${process.env.TEST_TEMPLATE_DB}_restored`;
    const out = await admin(s.databaseUrl, 'restore', file, '--database', name);
    expect(out[0]).toContain(`into database ${name}`);
    expect(out[2]).toMatch(new RegExp(`^Point DATABASE_URL at it: .*/${name}$`));
  });

  it('refuses a database that holds data, a damaged file, a file of another version, and a file that is not a backup; nothing is written', async () => {
    await expect(admin(s.databaseUrl, 'restore', file)).rejects.toThrow(/The database to restore into is not empty \(1 organisation\(s\), \d+ audit row\(s\)\)/);
    const bytes = readFileSync(file);
    const damaged = join(dir, 'damaged.backup');
    const text = gunzipSync(bytes).toString();
    writeFileSync(damaged, gzipSync(Buffer.from(text.replace('\nTABLE accounts', '\nTABLE accountz'))));
    const other = join(dir, 'other.backup');
    rewrite(file, other, (t) => t.replace(/"schema":"[^"]+"/, '"schema":"Future1999999999999"'));
    const foreign = join(dir, 'foreign.backup');
    writeFileSync(foreign, gzipSync(Buffer.from('PGDMP not ours\n')));
    for (const [path, message] of [
      [damaged, /damaged\.backup is damaged: its checksum does not match what it holds/],
      [other, `was made by another version (schema Future1999999999999; this server's is ${currentSchema()}): restore it with that version, then upgrade`],
      [foreign, /it is not a backup of this server/],
      [join(dir, 'truncated.backup'), /truncated\.backup/],
    ] as const) {
      if (path.endsWith('truncated.backup')) writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
      const target = await createTestDatabase();
      await expect(admin(target, 'restore', path)).rejects.toThrow(message);
      const services = await startTestServices({ MASTER_KEY }, target);
      try {
        expect(await services.dataSource.query(`SELECT count(*)::int AS n FROM resources`)).toEqual([{ n: 0 }]);
      } finally {
        await services.close();
      }
    }
  });

  it('a restore with another master key fails, naming the column, and leaves the proof undone', async () => {
    const target = await createTestDatabase();
    const ctx = await openAdminContext(loadConfig({ DATABASE_URL: target, MASTER_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'error' }));
    try {
      const command = COMMANDS.find((c) => c.name === 'restore')!;
      await expect(command.run(ctx, parseArgs([file], true))).rejects.toThrow(/data key|decrypt|master key/i);
    } finally {
      await ctx.close();
    }
  });
});
