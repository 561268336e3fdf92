import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, PeerCertificate } from 'node:tls';
import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { createApp, presentCaIssuedCertificate, serverTls } from '@app/server';
import { VaultModule } from '../../apps/vault/src/vault.module';
import { createTestDatabase } from '../support/database';

// docs/api/vault.md, "Transport": with no certificate configured, the server presents one issued by its own CA.
describe('HTTPS with TLS_MODE=self-signed', () => {
  it('presents a certificate from our internal service CA (not the CA organisations sign with), and keeps it', async () => {
    const databaseUrl = await createTestDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-tls-'));
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error', DB_POOL_SIZE: '3' });
    const boot = async () => {
      const app = await createApp(VaultModule.forRoot(config, databaseUrl), config, await serverTls(config));
      await app.init();
      await presentCaIssuedCertificate([app], config);
      await app.listen(0, '127.0.0.1');
      return app;
    };
    const app = await boot();
    let served = '';
    let fingerprint = '';
    try {
      const peer = await peerCertificate(app.getHttpServer().address().port);
      fingerprint = peer.fingerprint256;
      expect(peer.issuer.CN).not.toBe(peer.subject.CN);
      expect(peer.subjectaltname).toContain('IP Address:127.0.0.1');
      const cas: { name: string; certificate_pem: string }[] = await app
        .get(DataSource)
        .query(`SELECT name, certificate_pem FROM certificate_authorities WHERE org_id IS NULL ORDER BY id`);
      const pem = (name: string) => cas.find((c) => c.name === name)!.certificate_pem;
      const files = mkdtempSync(join(tmpdir(), 'vault-tls-verify-'));
      writeFileSync(join(files, 'service.pem'), pem('service-ca'));
      writeFileSync(join(files, 'root.pem'), pem('root-ca'));
      writeFileSync(join(files, 'issuing.pem'), pem('issuing-ca'));
      served = readFileSync(join(dataDir, 'tls', 'server.crt'), 'utf8');
      const [leaf, ...chain] = served.split(/(?<=-----END CERTIFICATE-----)\s*/).filter((p) => p.trim());
      writeFileSync(join(files, 'server.pem'), leaf);
      // Served with its chain (docs/api/vault.md, "Transport"): the internal service CA.
      expect(chain.map((p) => p.trim())).toEqual([pem('service-ca').trim()]);
      const verify = (...args: string[]) => execFileSync('sh', ['-c', 'openssl verify "$@" 2>&1; true', 'openssl', ...args], { encoding: 'utf8' });
      expect(verify('-CAfile', join(files, 'service.pem'), join(files, 'server.pem'))).toContain('server.pem: OK');
      // Issue 11 case 6: the CA every organisation signs with does not vouch for the service's name.
      expect(verify('-CAfile', join(files, 'root.pem'), '-untrusted', join(files, 'issuing.pem'), join(files, 'server.pem'))).not.toContain(
        'server.pem: OK',
      );
    } finally {
      await app.close();
    }

    // A restart keeps the stored certificate rather than issuing another.
    const again = await boot();
    try {
      expect(readFileSync(join(dataDir, 'tls', 'server.crt'), 'utf8')).toBe(served);
      expect((await peerCertificate(again.getHttpServer().address().port)).fingerprint256).toBe(fingerprint);
    } finally {
      await again.close();
    }
  });
});

function peerCertificate(port: number): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on('error', reject);
  });
}
