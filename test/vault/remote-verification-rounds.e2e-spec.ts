import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { VerificationRounds } from '../../apps/vault/src/remote-reset/verification-rounds';
import { startTestServices, TestServices } from '../support/app';
import { ConnectorPeer, startPeer } from '../support/connector-peers';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { startSmtpSink, SmtpSink } from '../support/smtp-sink';
import { freePort } from '../support/free-port';

const V1 = '/restapi/json/v1';

/**
 * The periodic verification: each account of a configured resource is verified once per
 * interval, however many instances run a round at the same moment; the status and time
 * stay on the account, the metric counts accounts per status, a password changed behind
 * the vault's back is found OUT OF SYNC (audited as the system actor, and notified by the
 * expiry notices' channels: mail to the resource owner through a real SMTP server, webhook).
 */
describe('periodic password verification', () => {
  let s: TestServices;
  let peer: ConnectorPeer;
  let resourceId: number;
  const names: string[] = [];
  const notices: Record<string, unknown>[] = [];
  let webhook: Server;
  let smtp: SmtpSink;
  const OWNER = 'directory-owner@example.test';

  beforeAll(async () => {
    // The expiry notices' webhook channel carries the out-of-sync notice too.
    webhook = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => (notices.push(JSON.parse(body)), res.end('ok')));
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(webhook.address() as { port: number }).port}/hook`;
    smtp = await startSmtpSink(await freePort());
    const mail = { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_TLS: 'off', SMTP_FROM: 'vault@example.test' };
    [s, peer] = await Promise.all([startTestServices({ VERIFY_INTERVAL_MS: '3600000', METRICS_PUBLIC: 'true', EXPIRY_WEBHOOK_URL: hook, ...mail }), startPeer('ldap')]);
    const resource = await createResource(s.vaultUrl, s.adminToken, {
      RESOURCENAME: 'directory',
      RESOURCETYPE: peer.resourceType,
      DNSNAME: '127.0.0.1',
      ACCOUNTNAME: peer.admin.username,
      PASSWORD: peer.admin.password,
    });
    resourceId = resource.resourceId;
    // The notice mails the resource's owner (here the first administrator, given an address).
    await s.dataSource.query('UPDATE users SET email = $1 WHERE id = (SELECT owner_id FROM resources WHERE id = $2)', [OWNER, resourceId]);
    const list = [];
    for (let i = 0; i < 12; i++) {
      const password = `Round-${i}-Pass-word`;
      names.push(await peer.createAccount(password));
      list.push({ ACCOUNTNAME: names[i], PASSWORD: password });
    }
    const send = (method: 'post' | 'put', path: string, details: Record<string, unknown>) =>
      request(s.vaultUrl)[method](`${V1}${path}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
    expect((await send('post', `/resources/${resourceId}/accounts`, { ACCOUNTLIST: list })).body.operation.result.status).toBe('Success');
    expect((await send('put', `/resources/${resourceId}/remotepasswordreset`, { ACCOUNTNAME: peer.admin.username, ...peer.config })).body.operation.result.status).toBe('Success');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await peer?.stop();
    await smtp?.stop();
    webhook?.close();
  });

  it('verifies each account once however many rounds run at once, and keeps status and time', async () => {
    await peer.setPassword(names[0], 'Changed-Behind-Back-1');
    const rounds = s.vault.get(VerificationRounds);
    // Three rounds at once (as three instances), besides the instance's own timer: each account is claimed by one.
    await Promise.all([rounds.verifyDue(), rounds.verifyDue(), rounds.verifyDue()]);
    const due = async () => (await s.dataSource.query('SELECT count(*)::int AS n FROM accounts WHERE last_verified_at IS NULL'))[0].n;
    for (let i = 0; i < 100 && (await due()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await rounds.verifyDue()).toBe(0);
    const rows = await s.dataSource.query(
      `SELECT a.name, a.password_status, a.last_verified_at IS NOT NULL AS verified,
         (SELECT count(*)::int FROM audit x WHERE x.account_id = a.id AND x.operation IN ('Password Verified', 'Password Out Of Sync')) AS audited
       FROM accounts a WHERE a.resource_id = $1 ORDER BY a.id`,
      [resourceId],
    );
    expect(rows.every((r: { verified: boolean; audited: number }) => r.verified && r.audited === 1)).toBe(true);
    expect(rows.find((r: { name: string }) => r.name === names[0]).password_status).toBe('OUT OF SYNC');
    expect(rows.filter((r: { password_status: string }) => r.password_status === 'IN SYNC')).toHaveLength(12);
    const [audit] = await s.dataSource.query(`SELECT actor_id, actor_name, description FROM audit WHERE operation = 'Password Out Of Sync'`);
    expect(audit).toMatchObject({ actor_id: null, description: expect.stringContaining('started by the periodic verification') });
    expect(notices).toEqual([expect.objectContaining({ event: 'password.out_of_sync', accountName: names[0], resourceName: 'directory' })]);
    for (let i = 0; i < 50 && smtp.messages().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    const mails = smtp.messages().map((m) => m.replace(/=\r?\n/g, ''));
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatch(new RegExp(`^X-Envelope-To: ${OWNER}\r?\n`));
    expect(mails[0]).toMatch(/^From: vault@example\.test\r?$/m);
    expect(mails[0]).toContain(`Subject: Stored password of ${names[0]} on directory is out of sync`);
    expect(mails[0]).toContain(`/resources/${resourceId}/accounts/`);
    for (const secret of ['Changed-Behind-Back-1', ...names.map((_, i) => `Round-${i}-Pass-word`), peer.admin.password]) expect(mails[0]).not.toContain(secret);
    const metrics = await request(s.vaultUrl).get('/metrics');
    expect(metrics.text).toContain('credvault_accounts_by_password_status{status="IN SYNC",service="vault"} 12');
    expect(metrics.text).toContain('credvault_accounts_by_password_status{status="OUT OF SYNC",service="vault"} 1');
  });
});
