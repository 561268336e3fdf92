import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { restoreBackup } from '@app/backup';
import { createTestDatabase } from '../support/database';
import { createResource } from '../support/factories';
import { startSmtpSink, SmtpSink } from '../support/smtp-sink';
import { startTestServices, TestServices } from '../support/app';
import { freePort } from '../support/free-port';

const MASTER_KEY = randomBytes(32).toString('hex');

async function until<T>(what: string, check: () => Promise<T | false | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Issue 39: scheduled backups on two instances of one database, under write load: one instance
 * at a time, the newest BACKUP_KEEP files kept, each run audited and counted; then the drill:
 * the newest backup restored into a new database, the services started on it, and every write
 * acknowledged before that backup began is there.
 */
describe('scheduled backups and the restore drill', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scheduled-backups-'));
  let a: TestServices;
  let b: TestServices;

  beforeAll(async () => {
    const env = { MASTER_KEY, BACKUP_DIR: dir, BACKUP_INTERVAL_SECONDS: '2', BACKUP_KEEP: '2' };
    a = await startTestServices(env);
    b = await startTestServices(env, a.databaseUrl);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a backup per interval from one instance at a time, keeps the newest two, audits and counts each', async () => {
    const acknowledged: { at: number; resource: Awaited<ReturnType<typeof createResource>> }[] = [];
    let writing = true;
    const load = (async () => {
      for (let i = 0; writing; i++) {
        const base = i % 2 ? b.vaultUrl : a.vaultUrl;
        const resource = await createResource(base, a.adminToken);
        acknowledged.push({ at: Date.now(), resource });
      }
    })();
    const runs = await until('three scheduled backups', async () => {
      const rows = await a.dataSource.query(`SELECT id, file, started_at, finished_at FROM backup_runs WHERE outcome = 'success' ORDER BY id`);
      return rows.length >= 3 && rows;
    });
    writing = false;
    await load;

    // Never two at once: each run finished before the next began.
    for (let i = 1; i < runs.length; i++) expect(new Date(runs[i].started_at).getTime()).toBeGreaterThanOrEqual(new Date(runs[i - 1].finished_at).getTime());
    const files = readdirSync(dir).filter((f) => f.endsWith('.backup')).sort();
    expect(files).toHaveLength(2);
    expect(files.map((f) => join(dir, f))).toContain(runs[runs.length - 1].file);
    const audit = await a.dataSource.query(`SELECT actor_name, description FROM audit WHERE operation = 'Backup Created' ORDER BY id`);
    expect(audit.length).toBeGreaterThanOrEqual(3);
    expect(audit[0]).toMatchObject({ actor_name: 'System', description: expect.stringMatching(/sha256 [0-9a-f]{64} \(schedule/) });
    const metrics = await request(a.vaultUrl).get('/metrics').set('AUTHTOKEN', a.adminToken);
    expect(metrics.text).toMatch(/credvault_backup_runs\{outcome="success",service="vault"\} ([3-9]|\d\d+)/);
    expect(metrics.text).toMatch(/credvault_backup_last_success_timestamp_seconds\{service="vault"\} \d{10}/);

    // The drill: the newest backup into a new database; every write acknowledged before it began is there.
    const newest = runs[runs.length - 1];
    const before = acknowledged.filter((w) => w.at < new Date(newest.started_at).getTime());
    expect(before.length).toBeGreaterThan(0);
    const target = await createTestDatabase();
    const outcome = await restoreBackup(target, newest.file, Buffer.from(MASTER_KEY, 'hex'), 'drill');
    expect(outcome.summary.rows.resources).toBeGreaterThanOrEqual(before.length);
    const restored = await startTestServices({ MASTER_KEY }, target);
    try {
      const ids = new Set((await restored.dataSource.query('SELECT id FROM resources')).map((r: { id: number }) => r.id));
      expect(before.filter((w) => !ids.has(w.resource.resourceId))).toEqual([]);
      const last = before[before.length - 1].resource;
      const res = await request(restored.vaultUrl).get(`/restapi/json/v1/resources/${last.resourceId}/accounts/${last.accountId}/password`).set('AUTHTOKEN', a.adminToken);
      expect(res.body.operation.Details.PASSWORD).toBe(last.password);
    } finally {
      await restored.close();
    }
  }, 120_000);
});

describe('a scheduled backup that fails', () => {
  let s: TestServices;
  let smtp: SmtpSink;
  const blocker = join(mkdtempSync(join(tmpdir(), 'backup-blocked-')), 'not-a-folder');

  beforeAll(async () => {
    writeFileSync(blocker, 'a file where the backup folder should be');
    const port = await freePort();
    smtp = await startSmtpSink(port);
    s = await startTestServices({
      MASTER_KEY,
      BACKUP_DIR: join(blocker, 'backups'),
      BACKUP_INTERVAL_SECONDS: '3',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(port),
      SMTP_TLS: 'off',
      SMTP_FROM: 'vault@example.test',
    });
    await s.dataSource.query(`UPDATE users SET email = 'root@example.test' WHERE is_super_admin`);
  });
  afterAll(async () => {
    await s?.close();
    await smtp?.stop();
  });

  it('is recorded, audited, counted and mailed to the super administrators', async () => {
    const [run] = await until('a failed run', async () => {
      const rows = await s.dataSource.query(`SELECT outcome, error FROM backup_runs`);
      return rows.length > 0 && rows[0].outcome === 'failed' && rows;
    });
    expect(run.error).toMatch(/ENOTDIR|not a directory/);
    const [audit] = await s.dataSource.query(`SELECT outcome, description FROM audit WHERE operation = 'Backup Failed'`);
    expect(audit).toMatchObject({ outcome: 'Failed', description: expect.stringMatching(/\(schedule\)$/) });
    const mail = await until('the failure mail', async () => smtp.messages().find((m) => m.includes('Scheduled backup failed')));
    expect(mail).toContain('X-Envelope-To: root@example.test');
    expect(mail).toContain(join(blocker, 'backups'));
    const metrics = await request(s.vaultUrl).get('/metrics').set('AUTHTOKEN', s.adminToken);
    expect(metrics.text).toMatch(/credvault_backup_runs\{outcome="failed",service="vault"\} 1/);
  }, 60_000);
});
