import request from 'supertest';
import { startSmtpSink, SmtpSink } from '../support/smtp-sink';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { call, share, user, workflow } from './workflow-helpers';
import { freePort } from '../support/free-port';

async function until<T>(check: () => T | false | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Issue 36: a request that needs a decision mails each user who may decide it (named approver
 * who sees the account; not the requester, not someone who cannot see it), the decision mails
 * the requester; no mail holds the password or the reason. With the SMTP server away the
 * request still succeeds and the failure is counted.
 */
describe('password request mail', () => {
  let s: TestServices;
  let smtp: SmtpSink;
  let port: number;
  let smtpStopped = false;
  // Mail bodies arrive quoted-printable: soft line breaks joined.
  const mails = () => smtp.messages().map((m) => m.replace(/=\r?\n/g, ''));

  beforeAll(async () => {
    port = await freePort();
    smtp = await startSmtpSink(port);
    s = await startTestServices({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port), SMTP_TLS: 'off', SMTP_FROM: 'vault@example.test', CONSOLE_URL: 'https://vault.example.test:7272/' });
  });
  afterAll(async () => {
    await s?.close();
    if (!smtpStopped) await smtp?.stop();
  });

  it('mails the approvers who may decide, then the requester, with neither password nor reason', async () => {
    const requester = await user(s, 'Password User', 'mail-req');
    const approver = await user(s, 'Password Administrator', 'mail-appr');
    const unseeing = await user(s, 'Password Administrator', 'mail-blind');
    await s.dataSource.query(`UPDATE users SET email = username || '@example.test' WHERE id = ANY($1)`, [[requester.id, approver.id, unseeing.id]]);
    const r = await createResource(s.vaultUrl, s.adminToken);
    const settings = { APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 1, ADMINS_APPROVE: 'false', APPROVER_USERS: `${approver.name},${unseeing.name}`, EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30 };
    expect((await call(s.vaultUrl, 'put', `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, s.adminToken, settings)).result.status).toBe('Success');
    await share(s, r.resourceId, requester.id);
    await share(s, r.resourceId, approver.id);
    expect((await workflow(s.vaultUrl).request(requester, r.accountId, { REASON: 'secret reason 42' })).result.status).toBe('Success');

    const asked = await until(() => mails().find((m) => m.includes('Password request:')));
    expect(asked).toContain(`X-Envelope-To: ${approver.name}@example.test`);
    expect(asked).not.toContain(unseeing.name);
    expect(asked).not.toContain(requester.name + '@');
    expect(asked).toContain(`${requester.name} asks for the password of root on ${r.name}`);
    expect(asked).not.toContain('secret reason 42');
    const [open] = await s.dataSource.query('SELECT id FROM password_requests WHERE account_id = $1', [r.accountId]);
    expect(asked).toContain(`https://vault.example.test:7272/console/approvals#request-${open.id}`);
    expect(asked).not.toContain(r.password);

    expect((await workflow(s.vaultUrl).approve(approver, r.accountId, requester.id)).result.status).toBe('Success');
    const decided = await until(() => mails().find((m) => m.includes('Your password request was approved')));
    expect(decided).toContain(`X-Envelope-To: ${requester.name}@example.test`);
    expect(decided).toContain(`was approved by ${approver.name}`);
    expect(decided).toContain('https://vault.example.test:7272/console/checkouts');
    expect(decided).not.toContain(r.password);
  });

  it('a mail that cannot be sent fails nothing: the request stands, the failure is counted', async () => {
    await smtp.stop();
    smtpStopped = true;
    const requester = await user(s, 'Password User', 'mail-req2');
    const approver = await user(s, 'Password Administrator', 'mail-appr2');
    await s.dataSource.query(`UPDATE users SET email = username || '@example.test' WHERE id = ANY($1)`, [[requester.id, approver.id]]);
    const r = await createResource(s.vaultUrl, s.adminToken);
    const settings = { APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 1, ADMINS_APPROVE: 'false', APPROVER_USERS: approver.name, EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30 };
    await call(s.vaultUrl, 'put', `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, s.adminToken, settings);
    await share(s, r.resourceId, requester.id);
    await share(s, r.resourceId, approver.id);
    expect((await workflow(s.vaultUrl).request(requester, r.accountId, { REASON: 'x' })).result.status).toBe('Success');
    const failed = async () => {
      const metrics = await request(s.vaultUrl).get('/metrics').set('AUTHTOKEN', s.adminToken);
      return /credvault_request_notices_total\{event="requested",outcome="failed",service="vault"\} 1/.test(metrics.text);
    };
    const deadline = Date.now() + 30_000;
    while (!(await failed())) {
      if (Date.now() > deadline) throw new Error('the failed mail was not counted');
      await new Promise((r) => setTimeout(r, 300));
    }
  }, 60_000);
});
