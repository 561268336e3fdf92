import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServices, TestServices } from '../support/app';
import { startSshd, type SshdFixture } from '../support/sshd';
import { createSelfSignedLeaf, NodeTlsPeer, startNodeTlsServer } from '../support/tls-peers';
import { client, Tools } from './cert-e2e-helpers';

const SIGNED = 'shadow-signed.e2e.test';
const CREATED = 'shadow-created.e2e.test';
const PEER_HOST = '127.0.0.7';
const SSH_PASSWORD = 'Shad0w-Pass-word';

/**
 * Issue 24 item 3: an endpoint presenting a certificate with a managed certificate's common
 * name and a newer notBefore is recorded as what that endpoint presents; every operation that
 * names the certificate by common name alone still acts on the managed one.
 */
describe('managed certificates are never shadowed by discovered ones (issue 24 item 3)', () => {
  let s: TestServices;
  let sshd: SshdFixture;
  const peers: NodeTlsPeer[] = [];
  const tools = new Tools();
  const api = client(() => s.pkiUrl, () => s.adminToken);
  const managed: Record<string, { serial: string; pem: string; id: number }> = {};

  const row = async (cn: string, source: string) =>
    (await s.dataSource.query('SELECT id, serial_number, certificate_pem, not_before, revoked_at FROM certificates WHERE common_name = $1 AND source = $2', [cn, source]))[0];

  /** A loopback TLS endpoint presenting a self-signed certificate of that name, newer than the managed one. */
  const impersonate = async (cn: string) => {
    const own = await row(cn, cn === SIGNED ? 'signed' : 'self-signed');
    const forged = await createSelfSignedLeaf(cn, new Date(new Date(own.not_before).getTime() + 3600_000));
    const peer = await startNodeTlsServer({ keyPem: forged.keyPem, chainPem: [forged.certPem], host: PEER_HOST });
    peers.push(peer);
    const res = await api.post('sslCertSingleDiscovery', { HOST: PEER_HOST, PORT: String(peer.port), TIMEOUT: '5' });
    expect(res.body.details[PEER_HOST][0]).toBe('SUCCESS');
    const found = await row(cn, 'discovered');
    expect(found).toBeDefined();
    const [endpoint] = await s.dataSource.query('SELECT certificate_id FROM certificate_endpoints WHERE host = $1 AND port = $2', [PEER_HOST, peer.port]);
    // Kept as what that endpoint presents.
    expect(endpoint.certificate_id).toBe(found.id);
    expect(new Date(found.not_before).getTime()).toBeGreaterThan(new Date(own.not_before).getTime());
  };

  beforeAll(async () => {
    [s, sshd] = await Promise.all([startTestServices(), startSshd()]);
    const csr = await api.post('createCSR', { CNAME: SIGNED, PASSWORD: 'Key-Pass-9' });
    const signed = await api.post('signCSR', { CSR_ID: csr.body.details.CSR_ID });
    expect(signed.body.result.status).toBe('Success');
    expect((await api.post('createCertificate', { CNAME: CREATED, PASSWORD: 'Key-Pass-8' })).body.result.status).toBe('Success');
    for (const [cn, source] of [[SIGNED, 'signed'], [CREATED, 'self-signed']]) {
      const r = await row(cn, source);
      managed[cn] = { serial: r.serial_number, pem: r.certificate_pem, id: r.id };
    }
    await impersonate(SIGNED);
    await impersonate(CREATED);
  });
  afterAll(async () => {
    await s?.close();
    await sshd?.stop();
    await Promise.all(peers.map((p) => p.stop()));
    tools.remove();
  });

  it('getCertificateDetails and getCertificate answer the managed certificate', async () => {
    const details = await api.get('getCertificateDetails', { common_name: SIGNED });
    expect(JSON.stringify(details.body)).toContain(managed[SIGNED].serial);
    const file = await api.download('getCertificate', { common_name: SIGNED, fileType: 'PEM' });
    expect(file.body.toString('utf8')).toContain(managed[SIGNED].pem.trim().split('\n')[1]);
  });

  it('getCertificatePassphrase and getCertificateKeyStore open the managed certificate’s key', async () => {
    const pass = await api.get('getCertificatePassphrase', { common_name: SIGNED });
    expect(pass.body.result.status).toBe('Success');
    expect(JSON.stringify(pass.body)).toContain('Key-Pass-9');
    const store = await api.download('getCertificateKeyStore', { common_name: SIGNED });
    tools.file('store.p12', store.body);
    const pem = tools.openssl('pkcs12', '-in', 'store.p12', '-passin', 'pass:Key-Pass-9', '-nokeys', '-clcerts');
    tools.file('from-store.pem', pem);
    expect(tools.openssl('x509', '-in', 'from-store.pem', '-noout', '-serial').trim()).toBe(`serial=${managed[SIGNED].serial}`);
  });

  it('deployCertificate sends the managed certificate to the server', async () => {
    const user = await sshd.createUser(SSH_PASSWORD);
    const home = sshd.homeOf(user);
    const target = await api.post('saveDeploymentTarget', {
      serverName: 'shadow-web', HOST: '127.0.0.1', PORT: sshd.port, userName: user, password: SSH_PASSWORD,
      certificatePath: `${home}/web/cert.pem`, keyPath: `${home}/web/key.pem`,
    });
    expect(target.body.result.status).toBe('Success');
    const res = await api.post('deployCertificate', { common_name: SIGNED, serverName: 'shadow-web' });
    expect(res.body.result.status).toBe('Success');
    tools.file('deployed.pem', readFileSync(join(home, 'web', 'cert.pem')));
    expect(tools.openssl('x509', '-in', 'deployed.pem', '-noout', '-serial').trim()).toBe(`serial=${managed[SIGNED].serial}`);
  });

  it('revokeENTCACertificate revokes the managed certificate, not the discovered one', async () => {
    const res = await api.post('revokeENTCACertificate', { common_name: SIGNED, revoke_reason: 1 });
    expect(res.text).toContain('has been revoked');
    expect((await row(SIGNED, 'signed')).revoked_at).not.toBeNull();
    expect((await row(SIGNED, 'discovered')).revoked_at).toBeNull();
  });

  it('deleteCertificate deletes the managed certificate and leaves what the endpoint presents', async () => {
    const res = await api.del('deleteCertificate', { common_name: CREATED });
    expect(res.body.result.status).toBe('Success');
    expect(await row(CREATED, 'self-signed')).toBeUndefined();
    expect(await row(CREATED, 'discovered')).toBeDefined();
  });

  it('discovering a managed certificate itself keeps it managed, and importing a discovered one makes it managed', async () => {
    const found = await row(SIGNED, 'discovered');
    tools.file('found.pem', found.certificate_pem);
    const res = await api.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: found.certificate_pem, name: 'found.pem' } });
    expect(res.body.result.Status ?? res.body.result.status).toBe('Success');
    const [again] = await s.dataSource.query('SELECT source FROM certificates WHERE id = $1', [found.id]);
    expect(again.source).toBe('imported');
  });
});
