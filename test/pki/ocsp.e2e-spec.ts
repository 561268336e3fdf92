import { execFile } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import request from 'supertest';
import { checkRevocation } from '@app/pki/discovery';
import { readCertificateDers } from '@app/pki/certs';
import { startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { rawRequest } from '../support/raw-http';
import { startNodeTlsServer, Peer } from '../support/tls-peers';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { API, binary, client, Tools } from './cert-e2e-helpers';

/**
 * A loopback front for PUBLIC_URL that forwards only the OCSP responder and refuses the
 * CRLs, so a revocation seen through it was seen through OCSP.
 */
async function startOcspOnlyFront(): Promise<{ port: number; target: { url: string }; stop(): Promise<void> }> {
  const target = { url: '' };
  const server = http.createServer((req, res) => {
    if (!req.url?.startsWith('/ocsp/')) return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forward = http.request(`${target.url}${req.url}`, { method: req.method, headers: { 'content-type': req.headers['content-type'] ?? '' } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? '' });
        answer.pipe(res);
      });
      forward.on('error', () => res.writeHead(502).end());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    target,
    stop: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

describe('OCSP responder of our CAs (RFC 6960), checked with openssl ocsp', () => {
  let s: TestServices;
  let front: Awaited<ReturnType<typeof startOcspOnlyFront>>;
  const tools = new Tools();
  const api = client(() => s.pkiUrl, () => s.adminToken);
  const peers: Peer[] = [];
  const issued: Record<string, { serialNumber: string; certificate: string }> = {};

  const issue = async (cn: string) => {
    const csr = await api.post('createCSR', { CNAME: cn, PASSWORD: 'Ocsp-Pass-1' });
    const signed = await api.post('signCSR', { CSR_ID: csr.body.details.CSR_ID });
    expect(signed.body.result.status).toBe('Success');
    issued[cn] = signed.body.details[0];
    tools.file(`${cn}.pem`, issued[cn].certificate);
    return issued[cn];
  };
  const revoke = async (cn: string, reason: string) => {
    const res = await request(s.pkiUrl)
      .post(`${API}/revokeENTCACertificate`)
      .set('AUTHTOKEN', s.adminToken)
      .query({ INPUT_DATA: inputData({ common_name: cn, serial_number: issued[cn].serialNumber, revoke_reason: reason }) });
    expect(res.text).toContain('has been revoked');
  };
  // openssl talks to the server in this process, so it must not block the event loop.
  const opensslAsync = (...args: string[]) =>
    new Promise<string>((resolve) =>
      execFile('sh', ['-c', 'openssl "$@" 2>&1; true', 'openssl', ...args], { cwd: tools.dir, timeout: 30_000 }, (_e, out) => resolve(String(out))),
    );
  const ocsp = (...args: string[]) =>
    opensslAsync('ocsp', '-issuer', 'issuing.pem', '-CAfile', 'root.pem', '-verify_other', 'issuing.pem', '-url', `${s.pkiUrl}/ocsp/issuing-ca`, ...args);

  beforeAll(async () => {
    front = await startOcspOnlyFront();
    s = await startTestServices({ PUBLIC_URL: `http://127.0.0.1:${front.port}` });
    front.target.url = s.pkiUrl;
    tools.file('root.pem', (await request(s.pkiUrl).get('/ca/root-ca.crt')).text);
    tools.file('issuing.pem', (await request(s.pkiUrl).get('/ca/issuing-ca.crt')).text);
    await issue('good.ocsp.test');
    await issue('revoked.ocsp.test');
    await revoke('revoked.ocsp.test', '1');
  });
  afterAll(async () => {
    await Promise.all(peers.map((p) => p.stop()));
    await s?.close();
    await front?.stop();
    tools.remove();
  });

  it('writes the responder URL (and the issuer certificate URL) into the Authority Information Access', () => {
    const text = tools.openssl('x509', '-in', 'good.ocsp.test.pem', '-noout', '-text');
    expect(text).toContain(`OCSP - URI:http://127.0.0.1:${front.port}/ocsp/issuing-ca`);
    expect(text).toContain(`CA Issuers - URI:http://127.0.0.1:${front.port}/ca/issuing-ca.crt`);
    expect(tools.openssl('x509', '-in', 'good.ocsp.test.pem', '-noout', '-ocsp_uri').trim()).toBe(`http://127.0.0.1:${front.port}/ocsp/issuing-ca`);
  });

  it('answers good, with the nonce echoed and a signature from a delegated responder openssl accepts', async () => {
    const out = await ocsp('-cert', 'good.ocsp.test.pem', '-resp_text');
    expect(out).toContain('Response verify OK');
    expect(out).toContain('good.ocsp.test.pem: good');
    expect(out).toContain('OCSP Nonce');
    expect(out).toContain('OCSP Signing');
    expect(out).toContain('OCSP No Check');
    expect(out).not.toMatch(/WARNING: no nonce|Nonce Verify error/);
  });

  it('answers revoked with the reason and time', async () => {
    const out = await ocsp('-cert', 'revoked.ocsp.test.pem');
    expect(out).toContain('Response verify OK');
    expect(out).toContain('revoked.ocsp.test.pem: revoked');
    expect(out).toContain('Reason: keyCompromise');
    expect(out).toMatch(/Revocation Time: \w{3} +\d+ [\d:]+ \d{4} GMT/);
  });

  it('answers unknown for a serial the CA never issued', async () => {
    const out = await ocsp('-serial', '0x1234ABCD');
    expect(out).toContain('Response verify OK');
    expect(out).toContain('0x1234ABCD: unknown');
  });

  it('the root CA answers for the issuing CA it certified; a CA not named by the request is unauthorized', async () => {
    const root = await opensslAsync('ocsp', '-issuer', 'root.pem', '-CAfile', 'root.pem', '-cert', 'issuing.pem', '-url', `${s.pkiUrl}/ocsp/root-ca`);
    expect(root).toContain('Response verify OK');
    expect(root).toContain('issuing.pem: good');
    const wrong = await opensslAsync('ocsp', '-issuer', 'issuing.pem', '-CAfile', 'root.pem', '-cert', 'good.ocsp.test.pem', '-url', `${s.pkiUrl}/ocsp/root-ca`);
    expect(wrong).toContain('unauthorized');
  });

  it('serves GET with the base64 request in the path, cacheable, and the same bytes until re-signing', async () => {
    tools.openssl('ocsp', '-issuer', 'issuing.pem', '-cert', 'revoked.ocsp.test.pem', '-no_nonce', '-reqout', 'get.req');
    const b64 = encodeURIComponent(readFileSync(tools.file('get.req')).toString('base64'));
    const get = () => request(s.pkiUrl).get(`/ocsp/issuing-ca/${b64}`).buffer(true).parse(binary);
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/ocsp-response');
    expect(first.headers['cache-control']).toMatch(/^public, max-age=\d+/);
    tools.file('get.resp', first.body);
    const out = tools.opensslVerdict('ocsp', '-respin', 'get.resp', '-issuer', 'issuing.pem', '-CAfile', 'root.pem', '-verify_other', 'issuing.pem', '-cert', 'revoked.ocsp.test.pem', '-no_nonce');
    expect(out).toContain('Response verify OK');
    expect(out).toContain('revoked.ocsp.test.pem: revoked');
    expect(out).toMatch(/This Update: .*\n\s*Next Update: /);
    expect(Buffer.compare((await get()).body, first.body)).toBe(0);
    // Some clients do not URL-encode the base64 ('/', '+', '=' as they are).
    const raw = await request(s.pkiUrl).get(`/ocsp/issuing-ca/${decodeURIComponent(b64)}`).buffer(true).parse(binary);
    expect(Buffer.compare(raw.body, first.body)).toBe(0);
  });

  it('shows a revocation at once, even after a cached good answer', async () => {
    await issue('later.ocsp.test');
    expect(await ocsp('-cert', 'later.ocsp.test.pem', '-no_nonce')).toContain('later.ocsp.test.pem: good');
    await revoke('later.ocsp.test', '6');
    const out = await ocsp('-cert', 'later.ocsp.test.pem', '-no_nonce');
    expect(out).toContain('later.ocsp.test.pem: revoked');
    expect(out).toContain('Reason: certificateHold');
  });

  it('answers malformedRequest to a body that is not an OCSP request, and needs no token', async () => {
    const res = await request(s.pkiUrl).post('/ocsp/issuing-ca').set('content-type', 'application/ocsp-request').send(Buffer.from('not ocsp')).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    // OCSPResponse { responseStatus ENUMERATED 1 }
    expect(res.body.toString('hex')).toBe('30030a0101');
    const none = await request(s.pkiUrl).post('/ocsp/no-such-ca').set('content-type', 'application/ocsp-request').send(readFileSync(tools.file('get.req'))).buffer(true).parse(binary);
    expect(none.body.toString('hex')).toBe('30030a0106');
  });

  it('answers malformedRequest, not the JSON envelope, to a CA name that does not decode (found by the fuzz suite)', async () => {
    const bad = await rawRequest(s.pkiUrl, { method: 'POST', path: '/ocsp/%FF', headers: { 'Content-Type': 'application/ocsp-request' }, body: readFileSync(tools.file('get.req')) });
    expect({ status: bad.status, type: bad.headers['content-type'], body: bad.body.toString('hex') }).toEqual({ status: 200, type: 'application/ocsp-response', body: '30030a0101' });
    const nul = await rawRequest(s.pkiUrl, { method: 'GET', path: `/ocsp/a%00b/${encodeURIComponent(readFileSync(tools.file('get.req')).toString('base64'))}` });
    expect({ status: nul.status, type: nul.headers['content-type'], body: nul.body.toString('hex') }).toEqual({ status: 200, type: 'application/ocsp-response', body: '30030a0101' });
  });

  it('made one delegated responder certificate per CA, stored sealed and audited', async () => {
    const rows = await s.dataSource.query(`SELECT name, ocsp_certificate_pem IS NOT NULL AS has, ocsp_private_key IS NOT NULL AS key FROM certificate_authorities ORDER BY id`);
    expect(rows).toEqual([
      { name: 'root-ca', has: true, key: true },
      { name: 'issuing-ca', has: true, key: true },
      // The internal CA of the services' TLS certificate answers no OCSP request here.
      { name: 'service-ca', has: false, key: false },
    ]);
    const audits = await s.dataSource.query(`SELECT target FROM audit WHERE operation = 'OCSP Responder Certificate Issued' ORDER BY id`);
    expect(audits.map((a: { target: string }) => a.target).sort()).toEqual(['issuing-ca', 'root-ca']);
  });

  it("discovery's Revoked count sees a revoked certificate through the responder (CRLs unreachable)", async () => {
    const key = await api.download('getCertificate', { common_name: 'revoked.ocsp.test', serial_number: issued['revoked.ocsp.test'].serialNumber, fileType: 'KEY' });
    const keyPem = createPrivateKey({ key: key.body.toString(), passphrase: 'Ocsp-Pass-1' }).export({ type: 'pkcs8', format: 'pem' }) as string;
    const issuingPem = readFileSync(tools.file('issuing.pem'), 'utf8');
    const peer = await startNodeTlsServer({ keyPem, chainPem: [issued['revoked.ocsp.test'].certificate, issuingPem] });
    peers.push(peer);

    const direct = await checkRevocation(readCertificateDers(issued['revoked.ocsp.test'].certificate)[0], readCertificateDers(issuingPem)[0]);
    expect(direct.revoked).toBe(true);
    expect(direct.errors.join('\n')).toMatch(/CRL/);
    expect(direct.errors.join('\n')).not.toMatch(/OCSP/);

    // Another organisation: its inventory does not know the certificate was revoked here.
    const other = await createOrgWithAdmin(s, 'OCSP Watchers');
    const found = await request(s.pkiUrl)
      .post(`${API}/sslCertSingleDiscovery`)
      .set('AUTHTOKEN', other.token)
      .type('form')
      .send({ INPUT_DATA: inputData({ HOST: '127.0.0.1', PORT: String(peer.port), TIMEOUT: '5' }) });
    expect(found.body.details['127.0.0.1'][0]).toBe('SUCCESS');
    const counts = await request(s.pkiUrl).get(`${API}/getSSLVulnerabilityCount`).set('AUTHTOKEN', other.token);
    expect(counts.body.details.SSLVulnerabilityCount.Revoked).toBe(1);
    const [row] = await s.dataSource.query(`SELECT c.revoked_at FROM certificates c WHERE c.org_id = $1 AND c.common_name = 'revoked.ocsp.test'`, [other.orgId]);
    expect(row.revoked_at).toBeNull();
  });
});
