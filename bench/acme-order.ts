import 'reflect-metadata';
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { AuditWriter } from '@app/audit';
import { loadConfig } from '@app/config';
import { Keyring } from '@app/crypto';
import { runMigrations } from '@app/persistence';
import { createApp, ensureFirstAdmin } from '@app/server';
import { createEabKey, setAllowedDomains } from '@app/pki/acme-service';
import { createCsr } from '@app/pki/certs';
import { PkiModule } from '../apps/pki/src/pki.module';
import { AcmeTestClient, keyAuthorizationOf } from './acme-client';
import { benchDatabase } from './support';

// A whole ACME order on loopback through the real pki service: new-order, authz, http-01
// (validated by connecting to a local challenge server), finalize with a CSR, download.
// BENCH_ACME_ORDERS (default 100) orders, by 1 client and by 8 clients at once.
const ORDERS = Number(process.env.BENCH_ACME_ORDERS ?? 100);

export async function main(): Promise<Record<string, number | string>[]> {
  const db = await benchDatabase();
  const served = new Map<string, string>();
  const challenges = createServer((req, res) => {
    const token = (req.url ?? '').split('/').pop()!;
    res.writeHead(served.has(token) ? 200 : 404).end(served.get(token) ?? '');
  });
  await new Promise<void>((r) => challenges.listen(0, '127.0.0.1', r));
  const port = (challenges.address() as { port: number }).port;
  try {
    await runMigrations(db.url);
    const config = loadConfig({ TLS_MODE: 'off', DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-acme-')), LOG_LEVEL: 'error', ACME_HTTP01_PORT: String(port) });
    const app = await createApp(PkiModule.forRoot(config, db.url), config);
    await app.listen(0, '127.0.0.1');
    try {
      const ds = app.get(DataSource);
      await ensureFirstAdmin(ds, config.dataDir);
      const [org] = await ds.query(`SELECT id FROM organizations LIMIT 1`);
      const audit = new AuditWriter(ds);
      const cli = { id: null, username: 'bench' };
      await ds.transaction((m) => setAllowedDomains(m, audit, { orgId: org.id, caName: 'issuing-ca', domains: ['127.0.0.0/8'], actor: cli, serverWide: true }));
      const directory = `http://127.0.0.1:${app.getHttpServer().address().port}/acme/issuing-ca/directory`;
      const client = async () => {
        const key = await ds.transaction((m) => createEabKey(m, app.get(Keyring), audit, { orgId: org.id, caName: 'issuing-ca', createdBy: cli }));
        const c = await new AcmeTestClient(directory).init();
        await c.register(key.keyId, key.hmacKey);
        return c;
      };
      const csr = await createCsr({ subject: { commonName: '127.0.0.1' }, keyAlgorithm: 'EC', keyLength: 256 });
      const csrDer = Buffer.from(csr.csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');
      const steps: Record<string, number> = {};
      const timed = async <T>(step: string, work: () => Promise<T>): Promise<T> => {
        const t = performance.now();
        try {
          return await work();
        } finally {
          steps[step] = (steps[step] ?? 0) + performance.now() - t;
        }
      };
      const order = async (c: AcmeTestClient) => {
        const o = await timed('new-order', () => c.post(c.directory.newOrder, { identifiers: [{ type: 'ip', value: '127.0.0.1' }] }));
        const authz = await timed('authz', () => c.post(o.body.authorizations[0], ''));
        const ch = authz.body.challenges.find((x: { type: string }) => x.type === 'http-01');
        served.set(ch.token, keyAuthorizationOf(ch.token, c.jwk));
        if ((await timed('challenge', () => c.post(ch.url, {}))).body.status !== 'valid') throw new Error('challenge failed');
        const done = await timed('finalize', () => c.post(o.body.finalize, { csr: csrDer }));
        if (!(await timed('download', () => c.post(done.body.certificate, ''))).text.includes('BEGIN CERTIFICATE')) throw new Error('no certificate');
      };
      const figures = [];
      for (const clients of [1, 8]) {
        const cs = await Promise.all(Array.from({ length: clients }, client));
        const per = Math.ceil(ORDERS / clients);
        const started = performance.now();
        await Promise.all(cs.map(async (c) => {
          for (let i = 0; i < per; i++) await order(c);
        }));
        const seconds = (performance.now() - started) / 1000;
        figures.push({ clients, orders: per * clients, 'ms/order': Number(((seconds * 1000) / (per * clients)).toFixed(1)), 'orders/s': Number(((per * clients) / seconds).toFixed(1)) });
      }
      console.table(figures);
      // Each POST also fetches a fresh nonce first when the last answer's was spent (the client keeps one).
      console.log('ms per step (both runs):', Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, Number((v / (ORDERS * 2)).toFixed(1))])));
      return figures;
    } finally {
      await app.close();
    }
  } finally {
    challenges.closeAllConnections();
    challenges.close();
    await db.drop();
  }
}
