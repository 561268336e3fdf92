import { INestApplication } from '@nestjs/common';
import { createServer, Server } from 'node:http';
import { createHash, X509Certificate } from 'node:crypto';
import { loadConfig } from '@app/config';
import { createApp } from '@app/server';
import { createCsr } from '@app/pki/certs';
import { PkiModule } from '../../apps/pki/src/pki.module';
import { COMMANDS } from '../../scripts/admin/commands';
import { openAdminContext } from '../../scripts/admin/context';
import { parseArgs } from '../../scripts/admin/args';
import { startTestServices, TestServices } from '../support/app';
import { client } from './cert-e2e-helpers';
import { AcmeTestClient, flattened, newKey } from '../../bench/acme-client';
import { freePort } from '../support/free-port';

/** RFC 8555 behaviour that certbot and lego do not exercise: refusals, nonces across instances, key change, deactivation. */
describe('ACME protocol', () => {
  let s: TestServices;
  let second: INestApplication;
  let secondUrl: string;
  let challengeServer: Server;
  const served = new Map<string, string>();
  const api = client(() => s.pkiUrl, () => s.adminToken);
  const dir = () => `${s.pkiUrl}/acme/issuing-ca/directory`;

  beforeAll(async () => {
    const http01 = await freePort();
    s = await startTestServices({ ACME_HTTP01_PORT: String(http01) });
    // A second instance on the same database: nonces and state are shared.
    second = await createApp(PkiModule.forRoot(s.config, s.databaseUrl), s.config);
    await second.listen(0, '127.0.0.1');
    secondUrl = `http://127.0.0.1:${second.getHttpServer().address().port}`;
    challengeServer = createServer((req, res) => {
      const token = (req.url ?? '').split('/').pop()!;
      res.writeHead(served.has(token) ? 200 : 404).end(served.get(token) ?? '');
    });
    await new Promise<void>((r) => challengeServer.listen(http01, '127.0.0.1', r));
    await api.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*.acme.test, 127.0.0.0/8' });
  });
  afterAll(async () => {
    challengeServer?.closeAllConnections();
    challengeServer?.close();
    await second?.close();
    await s?.close();
  });

  async function eab() {
    return (await api.post('createAcmeEabKey', { caName: 'issuing-ca' })).body.details as { keyId: string; hmacKey: string };
  }

  async function registered(): Promise<AcmeTestClient> {
    const c = await new AcmeTestClient(dir()).init();
    const key = await eab();
    expect((await c.register(key.keyId, key.hmacKey)).status).toBe(201);
    return c;
  }

  function problem(res: { status: number; type: string; body: any }, type: string, status: number) {
    expect(res.type).toMatch(/^application\/problem\+json/);
    expect(res.status).toBe(status);
    expect(res.body.type).toBe(`urn:ietf:params:acme:error:${type}`);
  }

  it('serves a directory that requires external account binding; unknown CAs are 404', async () => {
    const c = await new AcmeTestClient(dir()).init();
    expect(c.directory).toMatchObject({ newAccount: `${s.pkiUrl}/acme/issuing-ca/new-account`, meta: { externalAccountRequired: true } });
    const res = await fetch(`${s.pkiUrl}/acme/no-such-ca/directory`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('only holders of an EAB key enrol, once per key; a bad HMAC is refused', async () => {
    const c = await new AcmeTestClient(dir()).init();
    problem(await c.post(c.directory.newAccount, { termsOfServiceAgreed: true }), 'externalAccountRequired', 400);
    const key = await eab();
    problem(await c.register(key.keyId, Buffer.alloc(32, 1).toString('base64url')), 'unauthorized', 403);
    expect((await c.register(key.keyId, key.hmacKey)).status).toBe(201);
    // The same key again finds the account; another key may not reuse the EAB key.
    expect((await c.post(c.directory.newAccount, { onlyReturnExisting: true }, { withJwk: true })).location).toBe(c.kid);
    const other = await new AcmeTestClient(dir()).init();
    problem(await other.register(key.keyId, key.hmacKey), 'unauthorized', 403);
    // Two new keys racing for one fresh EAB key: one account, whichever instance answers.
    const fresh = await eab();
    const racers = await Promise.all([dir(), `${secondUrl}/acme/issuing-ca/directory`].map((d) => new AcmeTestClient(d).init()));
    const statuses = (await Promise.all(racers.map((r) => r.register(fresh.keyId, fresh.hmacKey)))).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 403]);
    const [row] = await s.dataSource.query(`SELECT o.name FROM acme_accounts a JOIN organizations o ON o.id = a.org_id WHERE a.id = $1`, [Number(c.kid!.split('/').pop())]);
    expect(row.name).toBe('Default');
    const [sealed] = await s.dataSource.query(`SELECT hmac_key FROM acme_eab_keys WHERE key_id = $1`, [key.keyId]);
    expect(Buffer.from(sealed.hmac_key).includes(Buffer.from(key.hmacKey, 'base64url'))).toBe(false);
  });

  it('a nonce is good once, on any instance; a wrong url or signature is refused', async () => {
    const c = await new AcmeTestClient(`${secondUrl}/acme/issuing-ca/directory`).init();
    const key = await eab();
    expect((await c.register(key.keyId, key.hmacKey)).status).toBe(201);
    // Issued by the first instance, spent on the second.
    const nonce = (await fetch(`${s.pkiUrl}/acme/issuing-ca/new-nonce`, { method: 'HEAD' })).headers.get('replay-nonce')!;
    const body = JSON.stringify(await c.jws(c.kid!, '', { nonce }));
    const call = () => fetch(c.kid!, { method: 'POST', headers: { 'Content-Type': 'application/jose+json' }, body });
    expect((await call()).status).toBe(200);
    const replay = await call();
    expect(((await replay.json()) as { type: string }).type).toBe('urn:ietf:params:acme:error:badNonce');
    expect(replay.headers.get('replay-nonce')).toBeTruthy();
    problem(await c.post(c.kid!, '', { nonce: 'made-up-nonce' }), 'badNonce', 400);
    problem(await c.post(c.directory.newOrder, { identifiers: [] }, { key: newKey().key }), 'malformed', 400);
    const wrongUrl = await c.jws(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'a.acme.test' }] });
    const res = await fetch(c.kid!, { method: 'POST', headers: { 'Content-Type': 'application/jose+json' }, body: JSON.stringify(wrongUrl) });
    expect(res.status).toBe(403);
  });

  it('names outside the CA profile and wildcards are rejectedIdentifier', async () => {
    const c = await registered();
    const outside = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'www.example.org' }] });
    problem(outside, 'rejectedIdentifier', 400);
    expect(outside.body.detail).toContain('www.example.org');
    problem(await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: '*.acme.test' }] }), 'rejectedIdentifier', 400);
    problem(await c.post(c.directory.newOrder, { identifiers: [{ type: 'ip', value: '169.254.1.1' }] }), 'rejectedIdentifier', 400);
  });

  it('an IP identifier (RFC 8738) over http-01: validated by connecting, finalised, downloaded with its chain', async () => {
    const c = await registered();
    const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'ip', value: '127.0.0.1' }] });
    expect(order.status).toBe(201);
    const authz = await c.post(order.body.authorizations[0], '');
    const challenge = authz.body.challenges.find((ch: { type: string }) => ch.type === 'http-01');
    // First without the file served: the challenge fails and with it the order.
    const failed = await c.post(challenge.url, {});
    expect(failed.body.status).toBe('invalid');
    expect(failed.body.error.type).toBe('urn:ietf:params:acme:error:unauthorized');
    expect((await c.post(order.location!, '')).body.status).toBe('invalid');

    const again = await c.post(c.directory.newOrder, { identifiers: [{ type: 'ip', value: '127.0.0.1' }] });
    const authz2 = await c.post(again.body.authorizations[0], '');
    const ch2 = authz2.body.challenges.find((ch: { type: string }) => ch.type === 'http-01');
    const thumb = createHash('sha256').update(JSON.stringify({ crv: c.jwk.crv, kty: c.jwk.kty, x: c.jwk.x, y: c.jwk.y })).digest('base64url');
    served.set(ch2.token, `${ch2.token}.${thumb}`);
    expect((await c.post(ch2.url, {})).body.status).toBe('valid');
    expect((await c.post(again.location!, '')).body.status).toBe('ready');

    const wrongCsr = await createCsr({ subject: { commonName: '127.0.0.2' }, keyAlgorithm: 'EC', keyLength: 256 });
    problem(await c.post(again.body.finalize, { csr: der(wrongCsr.csrPem) }), 'badCSR', 400);
    const csr = await createCsr({ subject: { commonName: '127.0.0.1' }, keyAlgorithm: 'EC', keyLength: 256 });
    const done = await c.post(again.body.finalize, { csr: der(csr.csrPem) });
    expect(done.body.status).toBe('valid');
    const pem = await c.post(done.body.certificate, '');
    expect(pem.type).toMatch(/^application\/pem-certificate-chain/);
    const leaf = new X509Certificate(pem.text);
    expect(leaf.subjectAltName).toBe('IP Address:127.0.0.1');
    expect(pem.text.match(/BEGIN CERTIFICATE/g)).toHaveLength(3);

    // Revocation signed by the certificate's own key (jwk), not the account.
    const { createPrivateKey, createPublicKey } = await import('node:crypto');
    const certKey = createPrivateKey(csr.privateKeyPem);
    const revokeBody = flattened(
      { alg: 'ES256', url: c.directory.revokeCert, nonce: await c.freshNonce(), jwk: createPublicKey(certKey).export({ format: 'jwk' }) },
      { certificate: leaf.raw.toString('base64url'), reason: 4 },
      certKey,
    );
    const revoked = await fetch(c.directory.revokeCert, { method: 'POST', headers: { 'Content-Type': 'application/jose+json' }, body: JSON.stringify(revokeBody) });
    expect(revoked.status).toBe(200);
    problem(await c.post(c.directory.revokeCert, { certificate: leaf.raw.toString('base64url') }), 'alreadyRevoked', 400);
    const [row] = await s.dataSource.query(`SELECT revoke_reason, source FROM certificates WHERE serial_number = $1`, [leaf.serialNumber.toUpperCase()]);
    expect(row).toEqual({ revoke_reason: 4, source: 'acme' });
  });

  it('another account of the organisation may revoke once it holds authorizations for every name', async () => {
    const owner = await registered();
    const order = await authorizeIp(owner, '127.0.0.1');
    const csr = await createCsr({ subject: { commonName: '127.0.0.1' }, keyAlgorithm: 'EC', keyLength: 256 });
    const done = await owner.post(order.body.finalize, { csr: der(csr.csrPem) });
    const leaf = new X509Certificate((await owner.post(done.body.certificate, '')).text);
    const other = await registered();
    const payload = { certificate: leaf.raw.toString('base64url'), reason: 5 };
    problem(await other.post(other.directory.revokeCert, payload), 'unauthorized', 403);
    await authorizeIp(other, '127.0.0.1');
    expect((await other.post(other.directory.revokeCert, payload)).status).toBe(200);
  });

  it('key change moves the account to the new key; deactivation ends it', async () => {
    const c = await registered();
    const next = newKey();
    const inner = flattened({ alg: 'ES256', url: c.directory.keyChange, jwk: next.jwk }, { account: c.kid, oldKey: c.jwk }, next.key);
    expect((await c.post(c.directory.keyChange, inner)).status).toBe(200);
    // The old key no longer signs for the account; the new one does.
    problem(await c.post(c.kid!, ''), 'malformed', 400);
    c.key = next.key;
    c.jwk = next.jwk;
    expect((await c.post(c.kid!, '')).body.status).toBe('valid');
    const pending = await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'b.acme.test' }] });
    expect((await c.post(c.kid!, { status: 'deactivated' })).body.status).toBe('deactivated');
    const [cancelled] = await s.dataSource.query(`SELECT status FROM acme_orders WHERE id = $1`, [Number(pending.location!.split('/').pop())]);
    expect(cancelled.status).toBe('invalid');
    problem(await c.post(c.directory.newOrder, { identifiers: [{ type: 'dns', value: 'a.acme.test' }] }), 'unauthorized', 403);
    const audit = await s.dataSource.query(`SELECT operation FROM audit WHERE actor_name = $1 ORDER BY id`, [`acme:${c.kid!.split('/').pop()}`]);
    expect(audit.map((a: { operation: string }) => a.operation)).toEqual(['ACME Account Created', 'ACME Account Key Changed', 'ACME Account Deactivated']);
  });

  it('the admin command line issues EAB keys and sets allowed domains; bad input is refused by name', async () => {
    const out = await admin('acme-eab-key', '--ca', 'issuing-ca');
    const keyId = /EAB kid:\s+(\S+)/.exec(out.join('\n'))![1];
    const hmac = /EAB HMAC:\s+(\S+)/.exec(out.join('\n'))![1];
    const c = await new AcmeTestClient(dir()).init();
    expect((await c.register(keyId, hmac)).status).toBe(201);
    await expect(admin('acme-allowed-domains', '--domains', 'bad domain!')).rejects.toThrow(/bad domain!/);
    expect((await admin('acme-allowed-domains', '--domains', '*.acme.test,127.0.0.0/8')).join('')).toContain('*.acme.test, 127.0.0.0/8');
    const refused = await api.post('createAcmeEabKey', { caName: 'no-such-ca' });
    expect(refused.body.result).toMatchObject({ status: 'Failed', message: 'Certificate authority "no-such-ca" is not known' });
  });

  /** An order for one address, with its http-01 challenge answered and validated. */
  async function authorizeIp(c: AcmeTestClient, ip: string) {
    const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'ip', value: ip }] });
    const authz = await c.post(order.body.authorizations[0], '');
    const ch = authz.body.challenges.find((x: { type: string }) => x.type === 'http-01');
    const thumb = createHash('sha256').update(JSON.stringify({ crv: c.jwk.crv, kty: c.jwk.kty, x: c.jwk.x, y: c.jwk.y })).digest('base64url');
    served.set(ch.token, `${ch.token}.${thumb}`);
    expect((await c.post(ch.url, {})).body.status).toBe('valid');
    return order;
  }

  async function admin(...argv: string[]): Promise<string[]> {
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
    const ctx = await openAdminContext(loadConfig({ DATABASE_URL: s.databaseUrl, DATA_DIR: s.config.dataDir, LOG_LEVEL: 'error' }));
    try {
      await COMMANDS.find((c) => c.name === argv[0])!.run(ctx, parseArgs(argv.slice(1)));
    } finally {
      log.mockRestore();
      await ctx.close();
    }
    return lines;
  }
});

function der(pem: string): string {
  return Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');
}
