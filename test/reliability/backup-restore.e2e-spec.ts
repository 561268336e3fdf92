import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AuditSealer } from '@app/audit';
import { Keyring, loadMasterKey } from '@app/crypto';
import { verifyRestore } from '../../scripts/admin/verify-restore';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { ThrowawayPostgres } from './throwaway-postgres';

/**
 * Backup = pg_dump + the master key file, kept apart. A dump restored into a fresh database
 * opens with the master key (every sealed value in every table decrypts, the audit chain
 * verifies) and with any other key opens nothing.
 */
describe('backup and restore', () => {
  let s: TestServices;
  const dir = mkdtempSync(join(tmpdir(), 'vault-backup-'));
  // pg_dump refuses a server newer than itself, and a run without DATABASE_URL uses the embedded
  // PostgreSQL, newer than the machine's: the services keep their data on the machine's own.
  const pg = new ThrowawayPostgres();

  beforeAll(async () => {
    await pg.start();
    s = await startTestServices({}, pg.url);
    const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'backed-up', PASSWORD: 'First-Pass-123!' });
    await request(s.vaultUrl)
      .put(`/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ NEWPASSWORD: 'Second-Pass-456!', RESETTYPE: 'LOCAL' }) })
      .expect(200);
    const pki = (op: string, details: Record<string, unknown>) =>
      request(s.pkiUrl).post(`/api/pki/restapi/${op}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
    expect((await pki('createsshkey', { keyName: 'backed-up-key', keyType: 'ed25519', passphrase: 'Key-Pass-1' })).body.result.status).toBe('Success');
    expect((await pki('createCertificate', { CNAME: 'backup.example.test', ALG: 'EC', LEN: '256', PASSWORD: 'Cert-Pass-1' })).body.result.status).toBe('Success');
    await new AuditSealer(s.dataSource, s.vault.get(Keyring)).sealNow();
  });
  afterAll(async () => {
    await s?.close();
    await pg.destroy();
  });

  const dump = (format: 'custom' | 'plain') => {
    const file = join(dir, `vault.${format === 'custom' ? 'dump' : 'sql'}`);
    execFileSync('pg_dump', [`--format=${format}`, '--no-owner', '-f', file, s.databaseUrl]);
    return file;
  };

  it('restores a custom-format dump: every secret decrypts with the master key and the audit chain verifies', async () => {
    const report = await verifyRestore(s.databaseUrl, dump('custom'), loadMasterKey(s.config));
    expect(report.opened).toMatchObject({
      'accounts.password': 1,
      'password_history.password': 1,
      'ssh_keys.private_key': 1,
      'certificates.private_key': expect.any(Number),
      'audit_chain.sealed_key': 1,
    });
    expect(report.opened['certificates.private_key']).toBeGreaterThanOrEqual(1);
    expect(report.auditRowsVerified).toBeGreaterThan(0);
    // The scratch database is gone again.
    expect(await s.dataSource.query(`SELECT datname FROM pg_database WHERE datname = $1`, [report.database])).toEqual([]);
  });

  it('restores a plain SQL dump the same way', async () => {
    const report = await verifyRestore(s.databaseUrl, dump('plain'), loadMasterKey(s.config));
    expect(report.opened['accounts.password']).toBe(1);
  });

  it('opens nothing without the master key', async () => {
    await expect(verifyRestore(s.databaseUrl, dump('custom'), randomBytes(32))).rejects.toThrow(/master key does not match/);
  });

  it('reports a tampered audit trail in the dump', async () => {
    const [first] = await s.dataSource.query(`SELECT id, description FROM audit ORDER BY id LIMIT 1`);
    await s.dataSource.query(`UPDATE audit SET description = 'edited' WHERE id = $1`, [first.id]);
    try {
      await expect(verifyRestore(s.databaseUrl, dump('custom'), loadMasterKey(s.config))).rejects.toThrow(/audit trail does not verify/);
    } finally {
      await s.dataSource.query(`UPDATE audit SET description = $2 WHERE id = $1`, [first.id, first.description]);
    }
  });
});
