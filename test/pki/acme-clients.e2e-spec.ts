import { INestApplication } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createApp } from '@app/server';
import { CertificateAuthoritiesService } from '@app/pki/cert-service';
import { PkiModule } from '../../apps/pki/src/pki.module';
import { startTestServices, TestServices } from '../support/app';
import { client } from './cert-e2e-helpers';
import { certbot, expectOk, lego } from './acme-clients';
import { freePort } from '../support/free-port';

/**
 * RFC 8555 with real clients on loopback: certbot (standalone http-01) and lego (tls-alpn-01)
 * against an HTTPS pki service whose certificate comes from our internal service CA; the
 * clients trust that and our root, and the certificates they get must chain to our root.
 */
describe('ACME server with certbot and lego', () => {
  let s: TestServices;
  let https: INestApplication;
  let directory: string;
  let rootPem: string;
  let trustPem: string;
  const dir = mkdtempSync(join(tmpdir(), 'acme-e2e-'));
  const api = client(() => s.pkiUrl, () => s.adminToken);

  beforeAll(async () => {
    const http01 = await freePort();
    const alpn = await freePort();
    s = await startTestServices({ ACME_HTTP01_PORT: String(http01), ACME_TLSALPN01_PORT: String(alpn) });
    const issued = await s.pki.get(CertificateAuthoritiesService).issueServerCertificate(['localhost', '127.0.0.1']);
    https = await createApp(PkiModule.forRoot(s.config, s.databaseUrl), s.config, {
      cert: [issued.certPem, ...issued.chainPems].join('\n'),
      key: issued.keyPem,
    });
    await https.listen(0, '127.0.0.1');
    directory = `https://localhost:${https.getHttpServer().address().port}/acme/issuing-ca/directory`;
    rootPem = join(dir, 'root.pem');
    const [root] = await s.dataSource.query(`SELECT certificate_pem FROM certificate_authorities WHERE name = 'root-ca'`);
    writeFileSync(rootPem, root.certificate_pem);
    trustPem = join(dir, 'trust.pem');
    const [service] = await s.dataSource.query(`SELECT certificate_pem FROM certificate_authorities WHERE name = 'service-ca'`);
    writeFileSync(trustPem, root.certificate_pem + service.certificate_pem);
    const set = await api.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*.localhost, 127.0.0.1' });
    expect(set.body.result.status).toBe('Success');
  });
  afterAll(async () => {
    await https?.close();
    await s?.close();
  });

  async function eabKey(): Promise<{ keyId: string; hmacKey: string }> {
    const res = await api.post('createAcmeEabKey', { caName: 'issuing-ca' });
    expect(res.body.result.status).toBe('Success');
    return res.body.details;
  }

  function verifyChain(certFile: string, chainFile: string): string {
    return execFileSync('openssl', ['verify', '-CAfile', rootPem, '-untrusted', chainFile, certFile], { encoding: 'utf8' });
  }

  async function inventory(commonName: string) {
    return s.dataSource.query(
      `SELECT c.id, c.source, c.revoked_at, c.revoke_reason, o.name AS org FROM certificates c JOIN organizations o ON o.id = c.org_id
        WHERE c.common_name = $1 ORDER BY c.id`,
      [commonName],
    );
  }

  it('certbot: registers with EAB, issues over http-01, renews and revokes', async () => {
    const key = await eabKey();
    const cb = join(dir, 'certbot');
    const http01 = String(s.config.acmeHttp01Port);
    const issue = await certbot(cb, trustPem, [
      'certonly', '--standalone', '--agree-tos', '--register-unsafely-without-email',
      '--server', directory, `--eab-kid=${key.keyId}`, `--eab-hmac-key=${key.hmacKey}`, // "=": a base64url key may begin with "-"
      '--http-01-port', http01, '--http-01-address', '127.0.0.1', '-d', 'certbot.acme-test.localhost',
    ]);
    expectOk(issue);
    expect(issue.out).toContain('Successfully received certificate');
    const live = join(cb, 'config', 'live', 'certbot.acme-test.localhost');
    expect(verifyChain(join(live, 'cert.pem'), join(live, 'chain.pem'))).toContain('OK');
    const first = new X509Certificate(readFileSync(join(live, 'cert.pem')));
    expect(first.subjectAltName).toBe('DNS:certbot.acme-test.localhost');

    const renew = await certbot(cb, trustPem, ['renew', '--force-renewal', '--no-random-sleep-on-renew']);
    expect(renew.out).toContain('all renewals succeeded');
    const second = new X509Certificate(readFileSync(join(live, 'cert.pem')));
    expect(second.serialNumber).not.toBe(first.serialNumber);
    expect(verifyChain(join(live, 'cert.pem'), join(live, 'chain.pem'))).toContain('OK');

    const rows = await inventory('certbot.acme-test.localhost');
    expect(rows).toHaveLength(2);
    expect(rows.every((r: { source: string; org: string }) => r.source === 'acme' && r.org === 'Default')).toBe(true);

    const revoke = await certbot(cb, trustPem, ['revoke', '--server', directory, '--cert-path', join(live, 'cert.pem'), '--reason', 'keycompromise', '--no-delete-after-revoke']);
    expect(revoke.out).toContain('Congratulations');
    const after = await inventory('certbot.acme-test.localhost');
    expect(after[1].revoked_at).not.toBeNull();
    expect(after[1].revoke_reason).toBe(1);

    const audit = await s.dataSource.query(`SELECT operation, actor_name, outcome FROM audit WHERE actor_name LIKE 'acme:%' ORDER BY id`);
    const ops = audit.map((a: { operation: string }) => a.operation);
    expect(ops).toEqual(expect.arrayContaining(['ACME Account Created', 'ACME Challenge Validated', 'Certificate Signed', 'Certificate Revoked']));
  }, 300_000);

  it('lego: issues over tls-alpn-01 for a name and an IP address, renews and revokes', async () => {
    const key = await eabKey();
    const lg = join(dir, 'lego');
    const server = directory;
    const tls = ['--tls', '--tls.port', `127.0.0.1:${s.config.acmeTlsAlpn01Port}`];
    const domains = ['--domains', 'lego.acme-test.localhost', '--domains', '127.0.0.1'];
    // lego asks for the EAB flags whenever the directory says externalAccountRequired; they are used once, at registration.
    const eab = ['--eab', `--kid=${key.keyId}`, `--hmac=${key.hmacKey}`]; // "=": a base64url key may begin with "-"
    const issue = await lego(lg, trustPem, server, [...domains, ...tls, ...eab, 'run']);
    expectOk(issue);
    const crt = join(lg, 'certificates', 'lego.acme-test.localhost.crt');
    const pem = readFileSync(crt, 'utf8');
    const leaf = new X509Certificate(pem);
    expect(leaf.subjectAltName).toBe('DNS:lego.acme-test.localhost, IP Address:127.0.0.1');
    writeFileSync(join(lg, 'leaf.pem'), leaf.toString());
    writeFileSync(join(lg, 'chain.pem'), readFileSync(join(lg, 'certificates', 'lego.acme-test.localhost.issuer.crt')));
    expect(verifyChain(join(lg, 'leaf.pem'), join(lg, 'chain.pem'))).toContain('OK');

    const renew = await lego(lg, trustPem, server, [...domains, ...tls, ...eab, 'renew', '--days', '3650', '--no-random-sleep']);
    expectOk(renew);
    const renewed = new X509Certificate(readFileSync(crt, 'utf8'));
    expect(renewed.serialNumber).not.toBe(leaf.serialNumber);

    const revoke = await lego(lg, trustPem, server, ['--domains', 'lego.acme-test.localhost', ...eab, 'revoke']);
    expectOk(revoke);
    const rows = await inventory('lego.acme-test.localhost');
    expect(rows).toHaveLength(2);
    expect(rows[1].revoked_at).not.toBeNull();
  }, 300_000);

  it('the issued certificates show in getAllSSLCertificates', async () => {
    const res = await api.get('getAllSSLCertificates');
    const names = JSON.stringify(res.body);
    expect(names).toContain('certbot.acme-test.localhost');
    expect(names).toContain('lego.acme-test.localhost');
  });
});
