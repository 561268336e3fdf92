import request from 'supertest';
import { DiscoveryService } from '@app/pki/discovery-service';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import {
  createCa,
  issueCertificate,
  KeyedCertificate,
  NodeTlsPeer,
  Peer,
  startHttpServer,
  startNodeTlsServer,
  startSilentServer,
} from '../support/tls-peers';
import { freePort } from '../support/free-port';

const API = '/api/pki/restapi';

describe('pki SSL discovery (ops 25-27) and background jobs', () => {
  let s: TestServices;
  let ca: KeyedCertificate;
  let modern: NodeTlsPeer;
  const peers: Peer[] = [];

  beforeAll(async () => {
    s = await startTestServices();
    ca = await createCa('CN=Discovery E2E Root');
    const leaf = await issueCertificate(ca, { subject: 'CN=modern.e2e.test', serialNumber: '0a1b', dnsNames: ['modern.e2e.test'] });
    modern = await startNodeTlsServer({ keyPem: leaf.keyPem, chainPem: [leaf.certPem, ca.certPem] });
    peers.push(modern);
  });
  afterAll(async () => {
    await s.close();
    await Promise.all(peers.map((peer) => peer.stop()));
  });

  const post = (op: string, details: Record<string, unknown>) =>
    request(s.pkiUrl).post(`${API}/${op}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
  const status = (jobId: string) => request(s.pkiUrl).get(`${API}/getDiscoveryStatus`).set('AUTHTOKEN', s.adminToken).query({ jobId });

  it('finds the chain on a single host, stores certificate, chain, endpoint and scan', async () => {
    const res = await post('sslCertSingleDiscovery', { HOST: '127.0.0.1', PORT: String(modern.port), TIMEOUT: '5' });
    expect(res.body).toEqual({
      name: 'Get SSL Discovery',
      result: { status: 'Success', message: expect.stringMatching(/^SSL certificate discovery completed: 1 of 1 address\(es\) presented a certificate, 1 new/) },
      details: { '127.0.0.1': ['SUCCESS', expect.stringMatching(/^Certificate found: CN=modern\.e2e\.test, expires \d{4}-\d\d-\d\d$/)] },
      totalRows: 1,
      jobId: expect.stringMatching(/^\d+$/),
    });
    const [cert] = await s.dataSource.query(`SELECT * FROM certificates WHERE common_name = 'modern.e2e.test'`);
    expect(cert).toMatchObject({ source: 'discovered', issuer: expect.stringContaining('Discovery E2E Root') });
    expect(cert.chain_pem).toBe(ca.certPem.replace(/\r\n/g, '\n').trim() + '\n');
    const [endpoint] = await s.dataSource.query(`SELECT * FROM certificate_endpoints WHERE certificate_id = $1`, [cert.id]);
    expect(endpoint).toMatchObject({ host: '127.0.0.1', port: modern.port, ip: '127.0.0.1' });
    expect(endpoint.scan).toMatchObject({ weakCiphers: [], sslv3: false, heartbleed: false, noTls12: false, protocols: { 'TLSv1.3': true, 'TLSv1.2': false } });
    const audit = await s.dataSource.query(`SELECT * FROM audit WHERE operation = 'SSL Certificates Discovered'`);
    expect(audit[0]).toMatchObject({ category: 'Pki', actor_name: 'admin', target: `127.0.0.1:${modern.port}` });
  });

  it('discovering the same endpoint again updates, never duplicates', async () => {
    const res = await post('sslCertSingleDiscovery', { HOST: '127.0.0.1', PORT: String(modern.port) });
    expect(res.body.result.message).toContain('0 new');
    const [{ n }] = await s.dataSource.query(`SELECT count(*)::int AS n FROM certificate_endpoints WHERE port = $1`, [modern.port]);
    expect(n).toBe(1);
  });

  it('answers a single host inline even when it takes longer than the background wait of a large list (no WAIT given)', async () => {
    const silent = await startSilentServer();
    peers.push(silent);
    // TIMEOUT 6 s outlasts the 5 s after which large lists answer with a job id.
    const res = await post('sslCertSingleDiscovery', { HOST: '127.0.0.1', PORT: String(silent.port), TIMEOUT: '6' });
    expect(res.body).toMatchObject({ name: 'Get SSL Discovery', result: { status: 'Success' }, details: { '127.0.0.1': ['FAILURE', 'Timed out after 6s'] } });
    const [job] = await s.dataSource.query('SELECT status FROM jobs WHERE id = $1', [Number(res.body.jobId)]);
    expect(job.status).toBe('done');
  });

  it('says why an address failed: refused, timed out, not TLS', async () => {
    const closed = await freePort();
    const silent = await startSilentServer();
    const http = await startHttpServer();
    peers.push(silent, http);
    const cases: [number, string, string][] = [
      [closed, '5', 'Connection refused'],
      [silent.port, '1', 'Timed out after 1s'],
      [http.port, '5', 'Not a TLS service'],
    ];
    for (const [port, timeout, message] of cases) {
      const res = await post('sslCertSingleDiscovery', { HOST: '127.0.0.1', PORT: String(port), TIMEOUT: timeout });
      expect(res.body.result.status).toBe('Success');
      expect(res.body.details).toEqual({ '127.0.0.1': ['FAILURE', message] });
    }
  });

  it.each([
    ['sslCertSingleDiscovery', { HOST: 'bad host!' }, 'Invalid host name: bad host!'],
    ['sslCertSingleDiscovery', { HOST: '10.0.0.300' }, 'Invalid IP address: 10.0.0.300'],
    ['sslCertSingleDiscovery', { HOST: '127.0.0.1', PORT: '70000' }, 'Invalid port: 70000 (expected 1-65535)'],
    ['sslCertSingleDiscovery', { HOST: '127.0.0.1', TIMEOUT: 'soon' }, 'Invalid timeout: soon (expected seconds above 0; more than 60 is capped at 60)'],
    ['sslCertSingleDiscovery', {}, 'HOST is required'],
    ['sslCertRangeDiscovery', { StartIpAddress: '127.0.0.9', EndIpAddress: '127.0.0.1' }, 'Start address is after end address'],
    ['sslCertRangeDiscovery', { StartIpAddress: '10.0.0.0', EndIpAddress: '10.0.8.0' }, 'Range too large: 2049 addresses (maximum 1024)'],
    ['sslCertRangeDiscovery', { StartIpAddress: 'x', EndIpAddress: '127.0.0.1' }, 'Invalid IP address: x'],
  ])('refuses bad input clearly: %s %j', async (op, details, message) => {
    const res = await post(op, details);
    expect(res.body).toEqual({ name: 'Get SSL Discovery', result: { status: 'Failed', message } });
  });

  it('discovers a range, one key per address', async () => {
    const res = await post('sslCertRangeDiscovery', { StartIpAddress: '127.0.0.1', EndIpAddress: '127.0.0.3', PORT: String(modern.port), TIMEOUT: '3' });
    expect(res.body.name).toBe('Get SSL Discovery');
    expect(res.body.totalRows).toBe(3);
    expect(Object.keys(res.body.details)).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
    expect(res.body.details['127.0.0.1'][0]).toBe('SUCCESS');
    expect(res.body.details['127.0.0.2']).toEqual(['FAILURE', 'Connection refused']);
  });

  it('discovers from an uploaded file (part File), port defaulting to PORT, SNI for names', async () => {
    const closed = await freePort();
    const list = `# targets\n127.0.0.1 ${modern.port}\nlocalhost ${modern.port}\n127.0.0.1\n`;
    const res = await request(s.pkiUrl)
      .post(`${API}/sslCertFileBasedDiscovery`)
      .set('AUTHTOKEN', s.adminToken)
      .field('INPUT_DATA', inputData({ FileName: 'hosts.txt', PORT: String(closed), TIMEOUT: '3' }))
      .attach('File', Buffer.from(list), 'hosts.txt');
    expect(res.body.result).toEqual({ status: 'Success', message: expect.stringContaining('discovery completed: 2 of 3') });
    expect(res.body.totalRows).toBe(3);
    expect(res.body.details).toEqual({
      [`127.0.0.1:${modern.port}`]: ['SUCCESS', expect.stringContaining('CN=modern.e2e.test')],
      localhost: ['SUCCESS', expect.stringContaining('CN=modern.e2e.test')],
      [`127.0.0.1:${closed}`]: ['FAILURE', 'Connection refused'],
    });
    expect(modern.servernames).toContain('localhost');
    const [endpoint] = await s.dataSource.query(`SELECT host, port FROM certificate_endpoints WHERE host = 'localhost'`);
    expect(endpoint).toEqual({ host: 'localhost', port: modern.port });
  });

  it('refuses a file discovery without a file or with bad lines', async () => {
    const none = await request(s.pkiUrl).post(`${API}/sslCertFileBasedDiscovery`).set('AUTHTOKEN', s.adminToken).field('PORT', '443');
    expect(none.body.result).toEqual({ status: 'Failed', message: 'File is required: upload the list of hosts in the part named File' });
    const bad = await request(s.pkiUrl)
      .post(`${API}/sslCertFileBasedDiscovery`)
      .set('AUTHTOKEN', s.adminToken)
      .attach('File', Buffer.from('127.0.0.1 99999\n'), 'hosts.txt');
    expect(bad.body.result.status).toBe('Failed');
    expect(bad.body.result.message).toContain('99999');
  });

  it('runs in the background past WAIT, with progress and the result under getDiscoveryStatus', async () => {
    const silent = await startSilentServer();
    peers.push(silent);
    const res = await post('sslCertRangeDiscovery', {
      StartIpAddress: '127.0.0.1',
      EndIpAddress: '127.0.0.10',
      PORT: String(silent.port),
      TIMEOUT: '3',
      WAIT: '0',
    });
    const jobId = res.body.jobId;
    expect(res.body).toEqual({
      name: 'Get SSL Discovery',
      result: {
        status: 'Success',
        message: `Discovery of 10 address(es) is running in the background as job ${jobId}; follow it with GET /api/pki/restapi/getDiscoveryStatus?jobId=${jobId}`,
      },
      totalRows: 0,
      jobId: expect.stringMatching(/^\d+$/),
    });
    await new Promise((resolve) => setTimeout(resolve, 1800));
    const running = await status(jobId);
    expect(running.body).toEqual({
      name: 'GetDiscoveryStatus',
      result: { status: 'Success', message: `Discovery job ${jobId} is running: 9 of 10 address(es) tried` },
      totalRows: 0,
      jobId,
      jobStatus: 'running',
      phase: 'discovering',
      total: 10,
      done: 9,
    });
    let finished = running;
    for (let i = 0; i < 40 && finished.body.jobStatus === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      finished = await status(jobId);
    }
    expect(finished.body).toMatchObject({ result: { status: 'Success', message: expect.stringContaining('completed: 0 of 10') }, jobStatus: 'done', done: 10, totalRows: 10 });
    expect(finished.body.details['127.0.0.1']).toEqual(['FAILURE', 'Timed out after 3s']);
    expect(finished.body.details['127.0.0.10']).toEqual(['FAILURE', 'Connection refused']);
  });

  it('answers a clear failure for an unknown job and hides other organisations\' jobs', async () => {
    const res = await status('987654');
    expect(res.body).toMatchObject({ name: 'GetDiscoveryStatus', result: { status: 'Failed', message: 'No discovery job with id 987654' } });
    const [org] = await s.dataSource.query(`INSERT INTO organizations (name) VALUES ('Other Org') RETURNING id`);
    const [job] = await s.dataSource.query(`INSERT INTO jobs (org_id, kind, status) VALUES ($1, 'ssl-discovery', 'done') RETURNING id`, [org.id]);
    expect((await status(String(job.id))).body.result).toEqual({ status: 'Failed', message: `No discovery job with id ${job.id}` });
  });

  it('needs PkiManage to discover and PkiRead to follow a job', async () => {
    const auditor = await createUserWithToken(s, 'disc-auditor', 'Password Auditor');
    const res = await request(s.pkiUrl)
      .post(`${API}/sslCertSingleDiscovery`)
      .set('AUTHTOKEN', auditor.token)
      .type('form')
      .send({ INPUT_DATA: inputData({ HOST: '127.0.0.1' }) });
    expect(res.body.result).toEqual({ status: 'Failed', message: 'Your role (Password Auditor) does not allow this operation' });
    const user = await createUserWithToken(s, 'disc-user', 'Password User');
    const st = await request(s.pkiUrl).get(`${API}/getDiscoveryStatus`).set('AUTHTOKEN', user.token).query({ jobId: '1' });
    expect(st.body.result.status).toBe('Failed');
  });
  // Last: it stops the pki instance's discovery service.
  it('hands a running job back when its service stops; another instance resumes it from its stored plan', async () => {
    const silent = await startSilentServer();
    peers.push(silent);
    const res = await post('sslCertSingleDiscovery', { HOST: '127.0.0.1', PORT: String(silent.port), TIMEOUT: '2', WAIT: '0' });
    const jobId = res.body.jobId as string;
    expect(res.body.result.message).toContain('running in the background');
    await s.pki.get(DiscoveryService).onModuleDestroy();
    const [row] = await s.dataSource.query('SELECT status FROM jobs WHERE id = $1', [Number(jobId)]);
    expect(row.status).toBe('pending');
    const waiting = await status(jobId);
    expect(waiting.body).toMatchObject({ jobStatus: 'running', phase: 'waiting', result: { status: 'Success', message: expect.stringContaining('interrupted by a service stop') } });
    // The vault runs the same discovery service: its resumer (or this call) picks the job up.
    await s.vault.get(DiscoveryService, { strict: false }).resumeOrphans();
    let finished = waiting;
    for (let i = 0; i < 80 && finished.body.jobStatus === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      finished = await status(jobId);
    }
    expect(finished.body).toMatchObject({ jobStatus: 'done', result: { status: 'Success', message: expect.stringContaining('completed: 0 of 1') } });
    expect(finished.body.details).toEqual({ '127.0.0.1': ['FAILURE', 'Timed out after 2s'] });
  });
});
