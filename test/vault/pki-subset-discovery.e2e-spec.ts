import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { createCa, issueCertificate, NodeTlsPeer, startNodeTlsServer } from '../support/tls-peers';

const API = '/api/pki/restapi';

describe('vault prefix B SSL discovery (docs/api/vault.md, prefix B)', () => {
  let s: TestServices;
  let peer: NodeTlsPeer;

  beforeAll(async () => {
    s = await startTestServices();
    const ca = await createCa();
    const leaf = await issueCertificate(ca, { subject: 'CN=vault.discovery.test', serialNumber: '5c' });
    peer = await startNodeTlsServer({ keyPem: leaf.keyPem, chainPem: [leaf.certPem, ca.certPem] });
  });
  afterAll(async () => {
    await s.close();
    await peer.stop();
  });

  const post = (op: string, details: Record<string, string>) =>
    request(s.vaultUrl).post(`${API}/${op}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });

  it('answers a single discovery with the host key at the top level, and under details as the key manager does', async () => {
    const res = await post('sslCertSingleDiscovery', { HOST: '127.0.0.1', PORT: String(peer.port), TIMEOUT: '5' });
    const entry = ['SUCCESS', expect.stringContaining('CN=vault.discovery.test')];
    expect(res.body).toEqual({
      name: 'Get SSL Discovery',
      result: { status: 'Success', message: expect.stringContaining('discovery completed: 1 of 1') },
      totalRows: 1,
      '127.0.0.1': entry,
      details: { '127.0.0.1': entry },
      jobId: expect.stringMatching(/^\d+$/),
    });
    const [row] = await s.dataSource.query(
      `SELECT c.source, e.port FROM certificates c JOIN certificate_endpoints e ON e.certificate_id = c.id WHERE c.common_name = 'vault.discovery.test'`,
    );
    expect(row).toEqual({ source: 'discovered', port: peer.port });
  });

  it('answers a range discovery with one top-level key per address', async () => {
    const res = await post('sslCertRangeDiscovery', { StartIpAddress: '127.0.0.1', EndIpAddress: '127.0.0.2', PORT: String(peer.port), TIMEOUT: '3' });
    expect(res.body).toMatchObject({
      name: 'Get SSL Discovery',
      result: { status: 'Success' },
      totalRows: 2,
      '127.0.0.1': ['SUCCESS', expect.stringContaining('CN=vault.discovery.test')],
      '127.0.0.2': ['FAILURE', 'Connection refused'],
    });
    expect(res.body.details).toEqual({ '127.0.0.1': res.body['127.0.0.1'], '127.0.0.2': ['FAILURE', 'Connection refused'] });
    // The key manager's layout for the same discovery: the hosts under details only.
    const pki = await request(s.pkiUrl).post(`${API}/sslCertRangeDiscovery`).set('AUTHTOKEN', s.adminToken).type('form')
      .send({ INPUT_DATA: inputData({ StartIpAddress: '127.0.0.1', EndIpAddress: '127.0.0.2', PORT: String(peer.port), TIMEOUT: '3' }) });
    expect(pki.body).toMatchObject({ name: 'Get SSL Discovery', totalRows: 2, details: { '127.0.0.2': ['FAILURE', 'Connection refused'] } });
    expect(pki.body['127.0.0.1']).toBeUndefined();
  });

  it('refuses a bad range clearly, in the prefix-B layout', async () => {
    const res = await post('sslCertRangeDiscovery', { StartIpAddress: '127.0.0.1', EndIpAddress: '127.0.4.1' });
    expect(res.body).toEqual({ name: 'Get SSL Discovery', result: { status: 'Failed', message: 'Range too large: 1025 addresses (maximum 1024)' } });
  });

  it('follows a background job on the vault too', async () => {
    const res = await post('sslCertSingleDiscovery', { HOST: '127.0.0.1', PORT: String(peer.port), WAIT: '0' });
    let status = await request(s.vaultUrl).get(`${API}/getDiscoveryStatus`).set('AUTHTOKEN', s.adminToken).query({ jobId: res.body.jobId });
    for (let i = 0; i < 40 && status.body.jobStatus === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await request(s.vaultUrl).get(`${API}/getDiscoveryStatus`).set('AUTHTOKEN', s.adminToken).query({ jobId: res.body.jobId });
    }
    expect(status.body).toMatchObject({ name: 'GetDiscoveryStatus', jobStatus: 'done', '127.0.0.1': ['SUCCESS', expect.any(String)] });
  });
});
