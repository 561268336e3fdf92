import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as http from 'node:http';
import request from 'supertest';
import { ExpiryNotifier } from '@app/pki/expiry-notices';
import { startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { startSmtpSink, SmtpSink } from '../support/smtp-sink';
import { Peer, startNodeTlsServer } from '../support/tls-peers';
import { API, client } from './cert-e2e-helpers';
import { freePort } from '../support/free-port';

/** Waits for a condition the background notifier brings about; generous, never a measured bound. */
async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('certificate expiry notices by SMTP (aiosmtpd) and webhook, once across two instances', () => {
  let a: TestServices | undefined;
  let b: TestServices | undefined;
  let smtp: SmtpSink | undefined;
  let smtpPort: number;
  let tlsPeer: Peer | undefined;
  const hooks: Record<string, any>[] = [];
  let webhook: http.Server;
  let env: Record<string, string>;
  let databaseUrl: string;
  let token: string;
  const api = client(() => a!.pkiUrl, () => token);

  const notices = async () =>
    (await a!.dataSource.query(
      `SELECT c.common_name, n.threshold_days, n.status, n.attempts, n.last_error FROM certificate_expiry_notices n
       JOIN certificates c ON c.id = n.certificate_id ORDER BY c.common_name`,
    )) as { common_name: string; threshold_days: number; status: string; attempts: number; last_error: string | null }[];

  beforeAll(async () => {
    smtpPort = await freePort();
    webhook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hooks.push(JSON.parse(body));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
    env = {
      // Every instance opens the same database, so they share one master key.
      MASTER_KEY: randomBytes(32).toString('hex'),
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtpPort),
      SMTP_TLS: 'off',
      SMTP_FROM: 'pki@example.test',
      EXPIRY_CHECK_INTERVAL_MS: '100',
      EXPIRY_WEBHOOK_URL: `http://127.0.0.1:${(webhook.address() as { port: number }).port}/hook`,
    };
    a = await startTestServices(env);
    databaseUrl = a.databaseUrl;
    token = a.adminToken;
    b = await startTestServices(env, databaseUrl);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await smtp?.stop();
    await tlsPeer?.stop();
    webhook?.closeAllConnections();
    await new Promise((r) => webhook?.close(r));
  });

  it('takes the Expiry Notification Email at creation and shows it in the certificate list; a bad address is refused', async () => {
    const bad = await api.post('createCertificate', { CNAME: 'bad.expiry.test', Email: 'ops@example.test, nobody' });
    expect(bad.body.result).toEqual({ status: 'Failed', message: 'Email: "nobody" is not an email address' });
    const made = await api.post('createCertificate', { CNAME: 'soon.expiry.test', VALIDITY: '5', Email: 'ops@example.test', PASSWORD: 'Soon-Pass-1' });
    expect(made.body.result.status).toBe('Success');
    await api.post('createCertificate', { CNAME: 'month.expiry.test', VALIDITY: '20', PASSWORD: 'Month-Pass-1' });
    await api.post('createCertificate', { CNAME: 'later.expiry.test', VALIDITY: '100', Email: 'ops@example.test' });
    await api.post('createCertificate', { CNAME: 'quiet.expiry.test', VALIDITY: '5' });
    // Signing: the CSR's email (createCSR, importCSR), unless signCSR gives another.
    const csr = await api.post('createCSR', { CNAME: 'csr.expiry.test', VALIDITY: '200', Email: 'csr@example.test' });
    expect((await api.post('signCSR', { CSR_ID: csr.body.details.CSR_ID })).body.result.status).toBe('Success');
    const other = await api.post('createCSR', { CNAME: 'override.expiry.test', VALIDITY: '200', Email: 'csr@example.test' });
    expect((await api.post('signCSR', { CSR_ID: other.body.details.CSR_ID, Email: 'signer@example.test' })).body.result.status).toBe('Success');
    const dir = mkdtempSync(join(tmpdir(), 'expiry-csr-'));
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=imported.expiry.test', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'r.csr')], { stdio: 'ignore' });
    const imported = await api.upload('importCSR', { Email: 'imported@example.test' }, { CSR: { body: readFileSync(join(dir, 'r.csr')), name: 'r.csr' } });
    expect((await api.post('signCSR', { CSR_ID: imported.body.details.CSR_ID })).body.result.status).toBe('Success');
    rmSync(dir, { recursive: true, force: true });

    const list = await api.get('getAllSSLCertificates');
    const byName = Object.fromEntries(list.body.details.map((e: Record<string, string>) => [e['Common Name'], e['Expiry Notification Email']]));
    expect(byName).toMatchObject({
      'soon.expiry.test': 'ops@example.test',
      'month.expiry.test': '',
      'quiet.expiry.test': '',
      'csr.expiry.test': 'csr@example.test',
      'override.expiry.test': 'signer@example.test',
      'imported.expiry.test': 'imported@example.test',
    });
  });

  it('changes the email with setCertificateNotificationEmail (vault prefix B), audited, after discovery found where the certificate runs', async () => {
    const key = await api.download('getCertificate', { common_name: 'month.expiry.test', fileType: 'KEY' });
    const cert = await api.download('getCertificate', { common_name: 'month.expiry.test', fileType: 'CRT' });
    const keyPem = createPrivateKey({ key: key.body.toString(), passphrase: 'Month-Pass-1' }).export({ type: 'pkcs8', format: 'pem' }) as string;
    tlsPeer = await startNodeTlsServer({ keyPem, chainPem: [cert.body.toString()] });
    const found = await request(a!.pkiUrl)
      .post(`${API}/sslCertSingleDiscovery`)
      .set('AUTHTOKEN', token)
      .type('form')
      .send({ INPUT_DATA: inputData({ HOST: '127.0.0.1', PORT: String(tlsPeer.port), TIMEOUT: '5' }) });
    expect(found.body.details['127.0.0.1'][0]).toBe('SUCCESS');

    const missing = await request(a!.vaultUrl).post(`${API}/setCertificateNotificationEmail`).set('AUTHTOKEN', token).type('form')
      .send({ INPUT_DATA: inputData({ common_name: 'month.expiry.test' }) });
    expect(missing.body.result).toEqual({ status: 'Failed', message: 'Email is required (an empty value stops the notices)' });
    const set = await request(a!.vaultUrl).post(`${API}/setCertificateNotificationEmail`).set('AUTHTOKEN', token).type('form')
      .send({ INPUT_DATA: inputData({ common_name: 'month.expiry.test', Email: 'web-team@example.test;ops@example.test' }) });
    expect(set.body).toMatchObject({
      name: 'SetCertificateNotificationEmail',
      result: { status: 'Success', message: 'Expiry notifications of certificate month.expiry.test will be sent to web-team@example.test, ops@example.test.' },
    });
    const [audit] = await a!.dataSource.query(`SELECT actor_name, target FROM audit WHERE operation = 'Certificate Notification Email Changed'`);
    expect(audit).toEqual({ actor_name: 'admin', target: 'month.expiry.test' });
  });

  it('queues one notice per certificate at its smallest crossed threshold; with the SMTP server down each is retried later', async () => {
    const rows = await until('both notices to fail once', async () => {
      const r = await notices();
      return r.length === 2 && r.every((n) => n.attempts >= 1) && r;
    });
    expect(rows.map((n) => [n.common_name, n.threshold_days, n.status])).toEqual([
      ['month.expiry.test', 30, 'pending'],
      ['soon.expiry.test', 7, 'pending'],
    ]);
    // Refused; or, when another process on this busy machine took the free port meanwhile, no SMTP greeting.
    expect(rows[0].last_error).toMatch(/ECONNREFUSED|connect|Greeting never received/i);
    expect(hooks).toEqual([]);
  });

  it('after both instances restart with the SMTP server up, two new instances send each mail exactly once', async () => {
    await a!.close();
    await b!.close();
    smtp = await startSmtpSink(smtpPort);
    a = await startTestServices(env, databaseUrl);
    // The retry is due now rather than after the backoff (the queue is what survived the restart).
    await a.dataSource.query(`UPDATE certificate_expiry_notices SET next_attempt_at = now()`);
    b = await startTestServices(env, databaseUrl);
    await until('both notices to be sent', async () => (await notices()).every((n) => n.status === 'sent'));
    // More rounds on both instances change nothing.
    for (const s of [a, b]) expect((await s.pki.get(ExpiryNotifier).tick()).sent).toBe(0);

    const mails = smtp.messages();
    expect(mails).toHaveLength(2);
    const soon = mails.find((m) => m.includes('soon.expiry.test'))!;
    const month = mails.find((m) => m.includes('month.expiry.test'))!;
    expect(soon).toMatch(/^X-Envelope-To: ops@example.test\r?\n/);
    expect(soon).toMatch(/Subject: Certificate soon.expiry.test expires in [45] days/);
    expect(soon).toContain('not found on any server by discovery');
    expect(month).toMatch(/^X-Envelope-To: web-team@example.test, ops@example.test\r?\n/);
    expect(month).toContain(`127.0.0.1:${tlsPeer!.port}`);
    expect(month).toContain('This is the 30-day notice');
    const [cert] = await a.dataSource.query(`SELECT not_after FROM certificates WHERE common_name = 'month.expiry.test'`);
    expect(month).toContain(`Expires:       ${new Date(cert.not_after).toISOString().slice(0, 10)}`);
    expect(month).toMatch(/From: pki@example.test/);

    expect(hooks.map((h) => [h.commonName, h.thresholdDays]).sort()).toEqual([['month.expiry.test', 30], ['soon.expiry.test', 7]]);
    expect(hooks.find((h) => h.commonName === 'month.expiry.test')).toMatchObject({ event: 'certificate.expiring', deployedAt: [`127.0.0.1:${tlsPeer!.port}`] });

    const audits = await a.dataSource.query(`SELECT target, outcome, description FROM audit WHERE operation = 'Certificate Expiry Notification' ORDER BY target`);
    expect(audits).toHaveLength(2);
    expect(audits[0]).toMatchObject({ target: 'month.expiry.test', outcome: 'Success' });
    expect(audits[0].description).toContain('30-day notice');
    expect(audits[0].description).toContain('mail to web-team@example.test, ops@example.test and webhook');
  });
});
