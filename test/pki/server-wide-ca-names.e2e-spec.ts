import { createHash } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { loadConfig } from '@app/config';
import { createCsr } from '@app/pki/certs';
import { AcmeTestClient } from '../../bench/acme-client';
import { CaAllowedNames1795460240000 } from '../../migrations/1795460240000-CaAllowedNames';
import { parseArgs } from '../../scripts/admin/args';
import { COMMANDS } from '../../scripts/admin/commands';
import { openAdminContext } from '../../scripts/admin/context';
import { startTestServices, TestServices } from '../support/app';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { client } from './cert-e2e-helpers';
import { freePort } from '../support/free-port';

const ORG_B = 'Names Org B';

/**
 * Issue 24 item 4: with a server-wide CA an organisation gets certificates only for the names
 * its list allows (subject common names and every SAN; signCSR and ACME alike); the provider
 * keeps signing any name by default, every other organisation nothing until the provider sets
 * its list; an organisation's own CA stays unrestricted for it.
 */
describe('server-wide CAs issue only names an organisation may have (issue 24 item 4)', () => {
  let s: TestServices;
  let orgB: { token: string; orgId: number };
  let challengeServer: Server;
  const served = new Map<string, string>();
  const admin = client(() => s.pkiUrl, () => s.adminToken);
  const b = client(() => s.pkiUrl, () => orgB.token);

  beforeAll(async () => {
    const http01 = await freePort();
    s = await startTestServices({ ACME_HTTP01_PORT: String(http01) });
    orgB = await createOrgWithAdmin(s, ORG_B);
    challengeServer = createServer((req, res) => {
      const token = (req.url ?? '').split('/').pop()!;
      res.writeHead(served.has(token) ? 200 : 404).end(served.get(token) ?? '');
    });
    await new Promise<void>((resolve) => challengeServer.listen(http01, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    challengeServer?.closeAllConnections();
    challengeServer?.close();
    await s?.close();
  });

  const sign = async (api: typeof b, cn: string, altNames?: string, caName?: string) => {
    const csr = await api.post('createCSR', { CNAME: cn, ...(altNames ? { ALT_NAMES: altNames } : {}), PASSWORD: 'Csr-Pass-1' });
    expect(csr.body.result.status).toBe('Success');
    return api.post('signCSR', { CSR_ID: csr.body.details.CSR_ID, ...(caName ? { caName } : {}) });
  };
  const certificatesOfB = async () =>
    (await s.dataSource.query('SELECT c.common_name FROM certificates c JOIN certificate_authorities a ON a.id = c.ca_id WHERE c.org_id = $1 AND a.org_id IS NULL ORDER BY c.id', [orgB.orgId])).map(
      (r: { common_name: string }) => r.common_name,
    );

  it('another organisation gets nothing from issuing-ca until its provider sets its names: not A’s name, not its own', async () => {
    for (const cn of ['vault.orga.example', 'www.b.example']) {
      const res = await sign(b, cn);
      expect(res.body.result).toEqual({
        status: 'Failed',
        message: `This organisation may not have certificates for ${cn} from the server-wide CA issuing-ca; its provider has not set any names for it`,
      });
    }
    expect(await certificatesOfB()).toEqual([]);
  });

  it('the provider keeps signing any name with the server-wide CAs by default', async () => {
    expect((await sign(admin, 'vault.orga.example', 'api.orga.example,10.1.2.3')).body.result.status).toBe('Success');
  });

  it('the organisation’s own CA stays unrestricted for it', async () => {
    expect((await b.post('createCA', { caName: 'B Own CA', caType: 'root' })).body.result.status).toBe('Success');
    expect((await sign(b, 'anything.example', 'vault.orga.example', 'B Own CA')).body.result.status).toBe('Success');
  });

  it('only the provider’s super administrator sets another organisation’s names (HTTP, orgName), audited', async () => {
    const own = await b.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*' });
    expect(own.body.result).toEqual({
      status: 'Failed',
      message: 'Only a super administrator of the provider organisation may set the names ACME issues for with the built-in CA issuing-ca',
    });
    const other = await b.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*', orgName: 'Default' });
    expect(other.body.result).toEqual({ status: 'Failed', message: 'No organisation named Default' });
    const set = await admin.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*.b.example, b.example, 127.0.0.1', orgName: ORG_B });
    expect(set.body.result.status).toBe('Success');
    expect(set.body.details).toEqual({ caName: 'issuing-ca', allowedDomains: ['*.b.example', 'b.example', '127.0.0.1'], orgName: ORG_B });
    const rows = await s.dataSource.query(
      `SELECT n.org_id, n.names FROM ca_allowed_names n JOIN certificate_authorities c ON c.id = n.ca_id WHERE c.name = 'issuing-ca' AND c.org_id IS NULL`,
    );
    expect(rows).toEqual([{ org_id: orgB.orgId, names: ['*.b.example', 'b.example', '127.0.0.1'] }]);
    const [audit] = await s.dataSource.query(`SELECT actor_name, target, description FROM audit WHERE operation = 'ACME Allowed Domains Changed' ORDER BY id DESC LIMIT 1`);
    expect(audit).toEqual({ actor_name: 'admin', target: 'issuing-ca', description: `allowed: *.b.example, b.example, 127.0.0.1 for organisation ${ORG_B}` });
  });

  it('checks the common name and every SAN against the list', async () => {
    expect((await sign(b, 'www.b.example', 'b.example,api.b.example')).body.result.status).toBe('Success');
    const sanOutside = await sign(b, 'www.b.example', 'vault.orga.example');
    expect(sanOutside.body.result).toEqual({
      status: 'Failed',
      message: 'This organisation may not have certificates for vault.orga.example from the server-wide CA issuing-ca; it may have: *.b.example, b.example, 127.0.0.1',
    });
    const cnOutside = await sign(b, 'vault.orga.example', 'www.b.example');
    expect(cnOutside.body.result.message).toMatch(/^This organisation may not have certificates for vault\.orga\.example from/);
    // Not a DNS name: only `*` allows it.
    expect((await sign(b, 'B Team Service')).body.result.status).toBe('Failed');
    expect(await certificatesOfB()).toEqual(['www.b.example']);
  });

  it('signWithRoot on the server-wide root is held to the same list', async () => {
    const csr = await b.post('createCSR', { CNAME: 'vault.orga.example', PASSWORD: 'Csr-Pass-1' });
    const [root] = await s.dataSource.query(`SELECT common_name FROM certificate_authorities WHERE name = 'root-ca' AND org_id IS NULL`);
    const res = await b.post('signCSR', { CSR_ID: csr.body.details.CSR_ID, signType: 'signWithRoot', rootCertificateCommonName: root.common_name, Validity: 10 });
    expect(res.body.result.status).toBe('Failed');
    expect(res.body.result.message).toMatch(/may not have certificates for vault\.orga\.example from the server-wide CA root-ca/);
  });

  it('ACME on issuing-ca uses the organisation’s list, not the provider’s; a list shrunk before finalisation refuses', async () => {
    // The provider allows itself loopback addresses; that says nothing for B.
    expect((await admin.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*, 127.0.0.0/8' })).body.result.status).toBe('Success');
    const key = (await b.post('createAcmeEabKey', { caName: 'issuing-ca' })).body.details;
    const c = await new AcmeTestClient(`${s.pkiUrl}/acme/issuing-ca/directory`).init();
    expect((await c.register(key.keyId, key.hmacKey)).status).toBe(201);
    const outside = await c.post(c.directory.newOrder, { identifiers: [{ type: 'ip', value: '127.0.0.2' }] });
    expect(outside.status).toBe(400);
    expect(outside.body.type).toBe('urn:ietf:params:acme:error:rejectedIdentifier');
    expect(outside.body.detail).toBe('Refused 127.0.0.2: outside the names this organisation may have from CA issuing-ca');

    const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'ip', value: '127.0.0.1' }] });
    expect(order.status).toBe(201);
    const authz = await c.post(order.body.authorizations[0], '');
    const ch = authz.body.challenges.find((x: { type: string }) => x.type === 'http-01');
    const thumb = createHash('sha256').update(JSON.stringify({ crv: c.jwk.crv, kty: c.jwk.kty, x: c.jwk.x, y: c.jwk.y })).digest('base64url');
    served.set(ch.token, `${ch.token}.${thumb}`);
    expect((await c.post(ch.url, {})).body.status).toBe('valid');
    // The provider takes the address away from B before B finalises.
    expect((await admin.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*.b.example', orgName: ORG_B })).body.result.status).toBe('Success');
    const csr = await createCsr({ subject: { commonName: '127.0.0.1' }, keyAlgorithm: 'EC', keyLength: 256 });
    const der = Buffer.from(csr.csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');
    const done = await c.post(order.body.finalize, { csr: der });
    expect(done.body.type).toBe('urn:ietf:params:acme:error:rejectedIdentifier');
    expect(done.body.detail).toMatch(/may not have certificates for 127\.0\.0\.1 from the server-wide CA issuing-ca/);
    expect((await c.post(order.location!, '')).body.status).toBe('invalid');
    expect(await certificatesOfB()).toEqual(['www.b.example']);
  });

  it('the admin command acme-allowed-domains --org sets that organisation’s list', async () => {
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
    const ctx = await openAdminContext(loadConfig({ DATABASE_URL: s.databaseUrl, DATA_DIR: s.config.dataDir, LOG_LEVEL: 'error' }));
    try {
      const argv = ['--org', ORG_B, '--ca', 'issuing-ca', '--domains', 'cli.b.example'];
      await COMMANDS.find((command) => command.name === 'acme-allowed-domains')!.run(ctx, parseArgs(argv));
    } finally {
      log.mockRestore();
      await ctx.close();
    }
    expect(lines.join('\n')).toContain(`Allowed domains of issuing-ca for organisation ${ORG_B}: cli.b.example`);
    expect((await sign(b, 'cli.b.example')).body.result.status).toBe('Success');
    expect((await sign(b, 'www.b.example')).body.result.status).toBe('Failed');
  });

  it('the migration makes the old per-CA ACME list the provider’s (with `*` first) and keeps own CAs’ lists', async () => {
    const migration = new CaAllowedNames1795460240000();
    const runner = s.dataSource.createQueryRunner();
    try {
      await migration.down(runner);
      const [issuing] = await runner.query(`SELECT id FROM certificate_authorities WHERE name = 'issuing-ca' AND org_id IS NULL`);
      const [own] = await runner.query(`SELECT id FROM certificate_authorities WHERE name = 'B Own CA'`);
      await runner.query('DELETE FROM acme_profiles');
      await runner.query(`INSERT INTO acme_profiles (ca_id, allowed_domains) VALUES ($1, '{*.acme.test,127.0.0.0/8}'), ($2, '{*.b.example}')`, [issuing.id, own.id]);
      await migration.up(runner);
      const rows = await runner.query('SELECT org_id, ca_id, names FROM ca_allowed_names ORDER BY org_id, ca_id');
      const [provider] = await runner.query('SELECT min(id) AS id FROM organizations');
      expect(rows).toEqual([
        { org_id: provider.id, ca_id: issuing.id, names: ['*', '*.acme.test', '127.0.0.0/8'] },
        { org_id: orgB.orgId, ca_id: own.id, names: ['*.b.example'] },
      ]);
    } finally {
      await runner.release();
    }
  });
});
