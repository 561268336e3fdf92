import request from 'supertest';
import { AuditSealer, AuditWriter, CHAIN_COLUMNS, chainLink, loadChainState, verifyAuditChain } from '@app/audit';
import { Keyring } from '@app/crypto';
import { COMMANDS } from '../../scripts/admin/commands';
import { createResource } from '../support/factories';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { Json } from '../support/http';
import { auditRange } from '../../apps/vault/src/audit/audit-range';
import { createOrgWithAdmin } from './users-orgs';
import { adminContext, vaultClient } from './vault-client';

describe('audit: GET_AUDIT (op 51) and the tamper-evident chain', () => {
  let s: TestServices;
  let admin: ReturnType<typeof vaultClient>;
  beforeAll(async () => {
    s = await startTestServices();
    admin = vaultClient(s, s.adminToken);
  });
  afterAll(() => s.close());

  const audit = (query: Json, token = s.adminToken) => request(s.vaultUrl).get('/restapi/json/v1/audit').set('AUTHTOKEN', token).query(query);

  describe('GET_AUDIT', () => {
    let resource: Awaited<ReturnType<typeof createResource>>;
    beforeAll(async () => {
      resource = await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'audited-res', ACCOUNTNAME: 'audited-acc' });
      for (let i = 0; i < 3; i++) {
        await admin.get(`/resources/${resource.resourceId}/accounts/${resource.accountId}/password`).set('User-Agent', 'audit-test-client');
      }
      await admin.post('/user', { USERNAME: 'audited-user', ISAPIUSER: 'true' });
    });

    it('lists Resource entries newest first with the spec keys and totalRows = all matching', async () => {
      const res = await audit({ AUDITTYPE: 'Resource', STARTINDEX: '0', LIMIT: '2', DURATION: 'TODAY' });
      const op = res.body.operation;
      expect(op).toMatchObject({ name: 'GET_AUDIT', result: { status: 'Success' } });
      expect(op.Details).toHaveLength(2);
      const [count] = await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE category = 'Resource' AND org_id = 1`);
      expect(op.totalRows).toBe(count.n);
      expect(count.n).toBeGreaterThan(2);
      const entry = op.Details[0];
      expect(Object.keys(entry)).toEqual(expect.arrayContaining(['AUDITID', 'RESOURCENAME', 'ACCOUNTNAME', 'OPERATIONTYPE', 'OPERATEDBY', 'IPADDRESS', 'USERNAME', 'LASTACCESSEDTIME', 'REASON', 'NAME', 'CLIENT']));
      expect(entry).toMatchObject({ RESOURCENAME: 'audited-res', ACCOUNTNAME: 'audited-acc', OPERATIONTYPE: 'Password Retrieved', OPERATEDBY: 'admin', IPADDRESS: '127.0.0.1', CLIENT: 'audit-test-client' });
      expect(entry.LASTACCESSEDTIME).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
      expect(Number(op.Details[0].AUDITID)).toBeGreaterThan(Number(op.Details[1].AUDITID));
    });

    it('pages with STARTINDEX and LIMIT, and by keyset with BEFOREID', async () => {
      const all = (await audit({ AUDITTYPE: 'Resource', LIMIT: '1000' })).body.operation.Details.map((e: Json) => e.AUDITID);
      const second = (await audit({ AUDITTYPE: 'Resource', STARTINDEX: '1', LIMIT: '2' })).body.operation.Details.map((e: Json) => e.AUDITID);
      expect(second).toEqual(all.slice(1, 3));
      const keyset = (await audit({ AUDITTYPE: 'Resource', BEFOREID: all[0], LIMIT: '2' })).body.operation.Details.map((e: Json) => e.AUDITID);
      expect(keyset).toEqual(all.slice(1, 3));
      const past = await audit({ AUDITTYPE: 'Resource', STARTINDEX: '100000' });
      expect(past.body.operation).toEqual({ name: 'GET_AUDIT', result: { status: 'Success', message: 'Audit details fetched successfully' }, totalRows: all.length });
    });

    it('separates User entries', async () => {
      const op = (await audit({ AUDITTYPE: 'User' })).body.operation;
      expect(op.Details.every((e: Json) => e.RESOURCENAME === '')).toBe(true);
      expect(op.Details).toEqual(expect.arrayContaining([expect.objectContaining({ OPERATIONTYPE: 'User Added', NAME: 'audited-user', OPERATEDBY: 'admin' })]));
    });

    it('filters by DURATION and by FROMDATE/TODATE', async () => {
      await s.dataSource.query(
        `INSERT INTO audit (org_id, category, operation, outcome, actor_name, created_at) VALUES
           (1, 'Resource', 'Old Event', 'Success', 'someone', date_trunc('day', now()) - interval '12 hours'),
           (1, 'Resource', 'Older Event', 'Success', 'someone', date_trunc('day', now()) - interval '4 days'),
           (1, 'Resource', 'Ancient Event', 'Success', 'someone', date_trunc('day', now()) - interval '30 days')`,
      );
      const ops = async (q: Json) => (await audit({ AUDITTYPE: 'Resource', LIMIT: '1000', ...q })).body.operation.Details?.map((e: Json) => e.OPERATIONTYPE) ?? [];
      expect(await ops({ DURATION: 'YESTERDAY' })).toEqual(['Old Event']);
      expect(await ops({ DURATION: 'LAST_7_DAYS' })).toEqual(expect.arrayContaining(['Old Event', 'Older Event', 'Password Retrieved']));
      expect(await ops({ DURATION: 'LAST_7_DAYS' })).not.toContain('Ancient Event');
      expect(await ops({ DURATION: 'TODAY' })).not.toContain('Old Event');
      const d = new Date(Date.now() - 30 * 86_400_000);
      const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
      expect(await ops({ FROMDATE: day, TODATE: day })).toEqual(['Ancient Event']);
      const bad = await audit({ DURATION: 'LAST_YEAR' });
      expect(bad.body.operation.result).toEqual({ status: 'Failed', message: 'DURATION must be one of: TODAY, YESTERDAY, LAST_7_DAYS' });
      expect((await audit({ AUDITTYPE: 'Pki' })).body.operation.result.message).toBe('AUDITTYPE must be one of: Resource, User');
      expect((await audit({ LIMIT: '0' })).body.operation.result.message).toBe('LIMIT must be at least 1');
    });

    it('is read by auditors, refused to Password Users, and scoped to the organisation', async () => {
      const auditor = await createUserWithToken(s, 'the-auditor', 'Password Auditor');
      expect((await audit({ AUDITTYPE: 'Resource' }, auditor.token)).body.operation.result.status).toBe('Success');
      const user = await createUserWithToken(s, 'not-auditor', 'Password User');
      expect((await audit({ AUDITTYPE: 'Resource' }, user.token)).body.operation.result).toEqual({
        status: 'Failed',
        message: 'Your role (Password User) does not allow this operation',
      });
      const acme = await createOrgWithAdmin(s, 'Audit Acme');
      const theirs = (await audit({ AUDITTYPE: 'Resource' }, acme.token)).body.operation;
      expect(theirs.totalRows).toBe(0);
      const theirUsers = (await audit({ AUDITTYPE: 'User' }, acme.token)).body.operation;
      expect(JSON.stringify(theirUsers)).not.toContain('audited-user');
    });

    it('audits failed authentication (unknown token, locked user) without the token', async () => {
      const badToken = 'b'.repeat(64);
      await request(s.vaultUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', badToken);
      const locked = await createUserWithToken(s, 'locked-caller', 'Password User');
      await admin.put('/user/lock').query({ USERNAME: 'locked-caller' });
      await request(s.vaultUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', locked.token);
      const rows = await s.dataSource.query(`SELECT org_id, target, description FROM audit WHERE operation = 'Authentication Failed' ORDER BY id`);
      expect(rows).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ org_id: null, target: '' }),
          expect.objectContaining({ org_id: 1, target: 'locked-caller', description: expect.stringContaining('locked') }),
        ]),
      );
      expect(JSON.stringify(rows)).not.toContain(badToken);
      expect(JSON.stringify(rows)).not.toContain(locked.token);
      const entries = (await audit({ AUDITTYPE: 'User', LIMIT: '1000' })).body.operation.Details;
      expect(entries).toEqual(expect.arrayContaining([expect.objectContaining({ OPERATIONTYPE: 'Authentication Failed', NAME: 'locked-caller' })]));
    });
  });

  describe('totalRows from maintained counts', () => {
    let org: Awaited<ReturnType<typeof createOrgWithAdmin>>;
    const exact = async (from: string, to: string) =>
      Number(
        (
          await s.dataSource.query(`SELECT count(*)::int AS n FROM audit WHERE org_id = $1 AND category = 'Resource' AND created_at >= $2 AND created_at < $3`, [
            org.orgId,
            from,
            to,
          ])
        )[0].n,
      );
    beforeAll(async () => {
      org = await createOrgWithAdmin(s, 'counted-org');
      // Rows every 7 minutes over two days, so ranges cut hours and days at odd places.
      await s.dataSource.query(
        `INSERT INTO audit (org_id, category, operation, outcome, created_at)
         SELECT $1, 'Resource', 'Counted', 'Success', timestamptz '2026-03-01 00:03:00+00' + i * interval '7 minutes' FROM generate_series(0, 411) i`,
        [org.orgId],
      );
      await s.vault.get(AuditSealer).sealNow();
      // And some not sealed yet: the reader counts those above the chain head itself.
      await s.dataSource.query(
        `INSERT INTO audit (org_id, category, operation, outcome, created_at)
         SELECT $1, 'Resource', 'Late', 'Success', timestamptz '2026-03-01 10:00:00+00' + i * interval '1 hour' FROM generate_series(0, 9) i`,
        [org.orgId],
      );
    });

    it.each([
      ['2026-03-01', '2026-03-01'],
      ['2026-03-01 00:00', '2026-03-02 23:59'],
      ['2026-03-01 05:17', '2026-03-01 05:45'],
      ['2026-03-01 05:17', '2026-03-02 18:01:30'],
      ['2026-03-01 10:00', '2026-03-01 11:00'],
      ['2026-02-20', '2026-03-10'],
    ])('FROMDATE %s TODATE %s: the exact count', async (from, to) => {
      const res = await request(s.vaultUrl).get('/restapi/json/v1/audit').set('AUTHTOKEN', org.token).query({ AUDITTYPE: 'Resource', FROMDATE: from, TODATE: to, LIMIT: '1' });
      const range = auditRange(undefined, from, to);
      expect(res.body.operation.totalRows).toBe(await exact(range.from!.toISOString(), range.to!.toISOString()));
      expect(res.body.operation.totalRows).toBeGreaterThan(0);
    });

    it('without a range: every row of the organisation, sealed or not', async () => {
      const res = await request(s.vaultUrl).get('/restapi/json/v1/audit').set('AUTHTOKEN', org.token).query({ AUDITTYPE: 'Resource', LIMIT: '1' });
      expect(res.body.operation.totalRows).toBe(await exact('-infinity', 'infinity'));
      expect(res.body.operation.totalRows).toBe(412 + 10);
    });

    it('the counts cover exactly the sealed rows', async () => {
      await s.vault.get(AuditSealer).sealNow();
      const counted = await s.dataSource.query(
        `SELECT org_id, category, hour::text, rows::int FROM audit_counts WHERE org_id = $1 ORDER BY hour`,
        [org.orgId],
      );
      const actual = await s.dataSource.query(
        `SELECT org_id, category, floor(extract(epoch FROM created_at) / 3600)::bigint::text AS hour, count(*)::int AS rows
         FROM audit WHERE org_id = $1 GROUP BY 1, 2, 3 ORDER BY 3`,
        [org.orgId],
      );
      expect(counted).toEqual(actual);
    });
  });

  describe('hash chain', () => {
    const sealer = () => s.vault.get(AuditSealer);
    // Tiny ranges put a range boundary next to every row: each report must be the single walk's.
    const verify = async () => {
      const report = await verifyAuditChain(s.dataSource, s.vault.get(Keyring));
      for (const rangeIds of [1, 2, 3]) expect(await verifyAuditChain(s.dataSource, s.vault.get(Keyring), { rangeIds, streams: 3 })).toEqual(report);
      return report;
    };
    const backup = async () => {
      await s.dataSource.query('DROP TABLE IF EXISTS audit_backup');
      await s.dataSource.query('CREATE TABLE audit_backup AS SELECT * FROM audit');
      await s.dataSource.query('DROP TABLE IF EXISTS audit_seals_backup');
      await s.dataSource.query('CREATE TABLE audit_seals_backup AS SELECT * FROM audit_seals');
    };
    const restore = async () => {
      await s.dataSource.query('DELETE FROM audit');
      await s.dataSource.query('INSERT INTO audit SELECT * FROM audit_backup');
      await s.dataSource.query('DELETE FROM audit_seals');
      await s.dataSource.query('INSERT INTO audit_seals SELECT * FROM audit_seals_backup');
    };

    beforeAll(async () => {
      await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'chain-res' });
      // Burn an id: a rolled-back audit write leaves a gap that the chain must accept.
      await s.dataSource
        .transaction(async (m) => {
          await new AuditWriter(s.dataSource).record({ category: 'User', operation: 'Rolled Back' }, m);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'chain-res-2' });
      await sealer().sealNow();
      await backup();
    });
    afterEach(restore);

    it('seals every committed row in id order; the intact chain verifies', async () => {
      const [{ unsealed }] = await s.dataSource.query('SELECT count(*)::int AS unsealed FROM audit a WHERE NOT EXISTS (SELECT 1 FROM audit_seals s WHERE s.audit_id = a.id)');
      expect(unsealed).toBe(0);
      const report = await verify();
      const [{ n }] = await s.dataSource.query('SELECT count(*)::int AS n FROM audit');
      expect(report).toEqual({ ok: true, checked: n, headId: expect.any(String), unsealed: 0 });
      const checkpoints = await s.dataSource.query('SELECT last_audit_id FROM audit_checkpoints');
      expect(checkpoints.length).toBeGreaterThan(0);
    });

    it('seals any text exactly as chainLink defines it (quotes, backslashes, control characters, non-ASCII)', async () => {
      const nasty = 'a"b\\c\n\r\t\b\f\u0001\u001f\u007f é 😀 \u2028 </script> null';
      const id = await new AuditWriter(s.dataSource).record({ category: 'User', operation: 'Odd "Text"', reason: nasty, description: '\\u0041', target: '' });
      await sealer().sealNow();
      const [row] = await s.dataSource.query(`SELECT ${CHAIN_COLUMNS} FROM audit a WHERE a.id = $1`, [id]);
      const [seal] = await s.dataSource.query('SELECT prev_id::text AS prev, hash FROM audit_seals WHERE audit_id = $1', [id]);
      const [before] = await s.dataSource.query('SELECT hash FROM audit_seals WHERE audit_id = $1', [seal.prev]);
      const { key } = await loadChainState(s.dataSource, s.vault.get(Keyring));
      expect(chainLink(key, before.hash, seal.prev, row).equals(seal.hash)).toBe(true);
      expect((await verify()).ok).toBe(true);
      await backup();
    });

    it('seals a row the binary writer cannot write (a time beyond 2^53 µs) by chainLink, and the rows after it in the same call', async () => {
      const writer = new AuditWriter(s.dataSource);
      const first = await writer.record({ category: 'User', operation: 'Before' }); // the far row comes mid-batch
      const [{ id: far }] = await s.dataSource.query(
        `INSERT INTO audit (category, operation, outcome, created_at) VALUES ('User', 'Far Future', 'Success', '2300-01-01T00:00:00Z') RETURNING id::text AS id`,
      );
      const after = [await writer.record({ category: 'User', operation: 'After 1' }), await writer.record({ category: 'User', operation: 'After 2' })];
      await sealer().sealNow();
      const { key } = await loadChainState(s.dataSource, s.vault.get(Keyring));
      for (const id of [first, far, ...after]) {
        const [row] = await s.dataSource.query(`SELECT ${CHAIN_COLUMNS} FROM audit a WHERE a.id = $1`, [id]);
        const [seal] = await s.dataSource.query('SELECT prev_id::text AS prev, hash FROM audit_seals WHERE audit_id = $1', [id]);
        const [before] = await s.dataSource.query('SELECT hash FROM audit_seals WHERE audit_id = $1', [seal.prev]);
        expect(chainLink(key, before.hash, seal.prev, row).equals(seal.hash)).toBe(true);
      }
      const [head] = await s.dataSource.query('SELECT last_id::text AS id FROM audit_chain WHERE id = 1');
      expect(head.id).toBe(after[1]);
      expect(await verify()).toMatchObject({ ok: true, unsealed: 0 });
      await backup();
    });

    it('reports the first altered row', async () => {
      const [row] = await s.dataSource.query(`SELECT id FROM audit WHERE resource_name = 'chain-res' ORDER BY id LIMIT 1`);
      await s.dataSource.query(`UPDATE audit SET actor_name = 'mallory' WHERE id = $1`, [row.id]);
      expect((await verify()).problem).toEqual({ kind: 'altered', id: String(row.id), message: `row ${row.id} has been altered (its content does not match its seal)` });
      // Ranges of one row: each stream's batch buffers go back to the hash workers many times over.
      const walked = await verifyAuditChain(s.dataSource, s.vault.get(Keyring), { rangeIds: 1, streams: 2, hashWorkers: 2 });
      expect(walked.problem).toEqual({ kind: 'altered', id: String(row.id), message: `row ${row.id} has been altered (its content does not match its seal)` });
    });

    it('reports a row inserted into a gap, sealed or not', async () => {
      const [gap] = await s.dataSource.query(
        `SELECT a.id + 1 AS id FROM audit a WHERE NOT EXISTS (SELECT 1 FROM audit b WHERE b.id = a.id + 1) AND a.id < (SELECT max(id) FROM audit) ORDER BY a.id LIMIT 1`,
      );
      await s.dataSource.query(`INSERT INTO audit (id, org_id, category, operation, outcome) VALUES ($1, 1, 'User', 'Forged', 'Success')`, [gap.id]);
      expect((await verify()).problem).toMatchObject({ kind: 'inserted', id: String(gap.id) });
      const [prev] = await s.dataSource.query('SELECT audit_id AS id, hash FROM audit_seals WHERE audit_id < $1 ORDER BY audit_id DESC LIMIT 1', [gap.id]);
      await s.dataSource.query(`INSERT INTO audit_seals (audit_id, prev_id, hash) VALUES ($1, $2, $3)`, [gap.id, prev.id, prev.hash]);
      expect((await verify()).problem).toEqual({ kind: 'inserted', id: String(gap.id), message: `row ${gap.id} was inserted (the chain skips it)` });
    });

    it('reports a removed row, in the middle and at the end', async () => {
      const ids = (await s.dataSource.query('SELECT id FROM audit ORDER BY id')).map((r: Json) => String(r.id));
      const middle = ids[Math.floor(ids.length / 2)];
      await s.dataSource.query('DELETE FROM audit WHERE id = $1', [middle]);
      expect((await verify()).problem).toMatchObject({ kind: 'removed', id: middle });
      await restore();
      await s.dataSource.query('DELETE FROM audit WHERE id = $1', [ids[ids.length - 1]]);
      expect((await verify()).problem).toMatchObject({ kind: 'removed', id: ids[ids.length - 1] });
    });

    it('reports a changed chain link, a row never sealed, a seal after the head and a broken checkpoint', async () => {
      const ids = (await s.dataSource.query('SELECT id FROM audit ORDER BY id')).map((r: Json) => String(r.id));
      const [third, fourth] = [ids[2], ids[3]];
      await s.dataSource.query('UPDATE audit_seals SET prev_id = $2 WHERE audit_id = $1', [fourth, ids[0]]);
      expect((await verify()).problem).toEqual({ kind: 'altered', id: fourth, message: `row ${fourth} has been altered (its chain link was changed)` });
      await restore();
      await s.dataSource.query('DELETE FROM audit_seals WHERE audit_id = $1', [third]);
      expect(await verify()).toMatchObject({ checked: 2, problem: { kind: 'inserted', id: third, message: `row ${third} lies inside the sealed range but was never sealed` } });
      await restore();
      // Far above the sequence, so the background sealer leaves it alone.
      const late = String(BigInt(ids[ids.length - 1]) + 1_000_000n);
      await s.dataSource.query(`INSERT INTO audit (id, org_id, category, operation, outcome) VALUES ($1, 1, 'User', 'Forged', 'Success')`, [late]);
      await s.dataSource.query('INSERT INTO audit_seals (audit_id, prev_id, hash) SELECT $1, audit_id, hash FROM audit_seals WHERE audit_id = $2', [late, ids[ids.length - 1]]);
      expect((await verify()).problem).toEqual({ kind: 'inserted', id: late, message: `row ${late} carries a seal but lies after the chain head ${ids[ids.length - 1]}` });
      await restore();
      const [checkpoint] = await s.dataSource.query('SELECT id, last_audit_id::text AS audit_id, chain_hash FROM audit_checkpoints ORDER BY last_audit_id LIMIT 1');
      await s.dataSource.query('UPDATE audit_checkpoints SET chain_hash = $2 WHERE id = $1', [checkpoint.id, Buffer.alloc(32)]);
      expect((await verify()).problem).toEqual({
        kind: 'altered',
        id: checkpoint.audit_id,
        message: `row ${checkpoint.audit_id} does not match the checkpoint taken when it was sealed`,
      });
      await s.dataSource.query('UPDATE audit_checkpoints SET chain_hash = $2 WHERE id = $1', [checkpoint.id, checkpoint.chain_hash]);
      const gone = String(BigInt(ids[ids.length - 1]) + 1000n);
      await s.dataSource.query('INSERT INTO audit_checkpoints (last_audit_id, chain_hash) VALUES ($1, $2), ($3, $2)', [gone, Buffer.alloc(32), '9007199254740993']);
      expect((await verify()).problem).toEqual({ kind: 'removed', id: gone, message: `row ${gone}, named by a checkpoint, has been removed` });
      await s.dataSource.query('DELETE FROM audit_checkpoints WHERE last_audit_id IN ($1, $2)', [gone, '9007199254740993']);
      expect((await verify()).ok).toBe(true);
    });

    it('waits for a transaction still in flight so that a later id cannot be sealed before an earlier one', async () => {
      const runner = s.dataSource.createQueryRunner();
      await runner.startTransaction();
      try {
        const early = await new AuditWriter(s.dataSource).record({ category: 'User', operation: 'Slow Writer' }, runner.manager);
        const late = await new AuditWriter(s.dataSource).record({ category: 'User', operation: 'Fast Writer' });
        expect(BigInt(late)).toBeGreaterThan(BigInt(early));
        await expect(sealer().sealNow(300)).rejects.toThrow('still in flight');
        expect(await s.dataSource.query('SELECT 1 FROM audit_seals WHERE audit_id = $1', [late])).toEqual([]);
        await runner.commitTransaction();
        await sealer().sealNow();
        const rows = await s.dataSource.query('SELECT audit_id::text AS id, prev_id::text AS prev FROM audit_seals WHERE audit_id IN ($1, $2) ORDER BY audit_id', [early, late]);
        expect(rows).toEqual([expect.objectContaining({ id: early }), { id: late, prev: early }]);
        expect((await verify()).ok).toBe(true);
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
      await backup();
    });

    it('never skips a row whose transaction stays open across sealer runs and then commits', async () => {
      const tick = () => (sealer() as unknown as { tick(): Promise<void> }).tick();
      const writer = new AuditWriter(s.dataSource);
      const runner = s.dataSource.createQueryRunner();
      await runner.startTransaction();
      try {
        const held = await writer.record({ category: 'User', operation: 'Held Open' }, runner.manager);
        for (let i = 0; i < 4; i++) {
          await writer.record({ category: 'User', operation: `Written While Held ${i}` });
          await tick();
        }
        const [{ head }] = await s.dataSource.query('SELECT last_id::text AS head FROM audit_chain');
        expect(BigInt(head)).toBeLessThan(BigInt(held));
        await runner.commitTransaction();
        for (let i = 0; i < 3; i++) await tick();
        await sealer().sealNow();
        const [seal] = await s.dataSource.query('SELECT prev_id::text AS prev FROM audit_seals WHERE audit_id = $1', [held]);
        expect(seal).toBeDefined();
        const lines: string[] = [];
        const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
        try {
          await COMMANDS.find((c) => c.name === 'verify-audit')!.run(adminContext(s), {});
        } finally {
          log.mockRestore();
        }
        expect(lines.pop()).toMatch(/^OK: \d+ sealed rows intact up to audit id \d+; 0 newer rows not sealed yet\.$/);
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
      await backup();
    });

    it('verify-audit (admin CLI) prints OK, and fails naming the first tampered row', async () => {
      const command = COMMANDS.find((c) => c.name === 'verify-audit')!;
      const lines: string[] = [];
      const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
      try {
        await command.run(adminContext(s), { seal: true });
        expect(lines.pop()).toMatch(/^OK: \d+ sealed rows intact up to audit id \d+; 0 newer rows not sealed yet\.$/);
        const [row] = await s.dataSource.query('SELECT id FROM audit ORDER BY id LIMIT 1 OFFSET 3');
        await s.dataSource.query(`UPDATE audit SET reason = 'edited' WHERE id = $1`, [row.id]);
        await expect(command.run(adminContext(s), {})).rejects.toThrow(`Audit trail is not intact: row ${row.id} has been altered`);
        expect(lines.pop()).toBe(`FAILED after 3 intact rows: altered row ${row.id}`);
      } finally {
        log.mockRestore();
      }
    });
  });
});
