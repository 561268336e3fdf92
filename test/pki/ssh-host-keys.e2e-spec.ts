import request from 'supertest';
import { loadConfig } from '@app/config';
import { parseArgs } from '../../scripts/admin/args';
import { COMMANDS } from '../../scripts/admin/commands';
import { openAdminContext } from '../../scripts/admin/context';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { startSshd, type SshdFixture } from '../support/sshd';

const API = '/api/pki/restapi';
const V1 = '/restapi/json/v1';
const ADMIN_PASSWORD = 'Adm1n-Pass-word';
const USER_PASSWORD = 'Us3r-Pass-word';
const NEW_PASSWORD = 'Rotated-Pass-3';
const NOT_THE_KEY = `SHA256:${'A'.repeat(43)}`;

/** Runs an admin command in-process, as `npm run admin -- ...` does; returns what it printed. */
async function admin(databaseUrl: string, ...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  const ctx = await openAdminContext(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' }));
  try {
    await COMMANDS.find((c) => c.name === argv[0])!.run(ctx, parseArgs(argv.slice(1)));
  } finally {
    log.mockRestore();
    await ctx.close();
  }
  return lines;
}

/**
 * Host key pinning, proven with the real sshd: after its host key is regenerated every SSH
 * operation refuses before authenticating (sshd logs no password attempt), and works again
 * once the new key is accepted.
 */
describe('SSH host keys are pinned (real sshd)', () => {
  let s: TestServices;
  let sshd: SshdFixture;
  let sshAdmin: string;
  let user: string;
  let resourceName: string;
  let vaultResourceId: number;
  let vaultAccountId: number;
  let serial: string;
  let userPassword = USER_PASSWORD;

  beforeAll(async () => {
    [s, sshd] = await Promise.all([startTestServices(), startSshd()]);
    sshAdmin = await sshd.createUser(ADMIN_PASSWORD, { sudo: true });
    user = await sshd.createUser(USER_PASSWORD);
    resourceName = `127.0.0.1:${sshd.port}`;
    const resource = await createResource(s.vaultUrl, s.adminToken, {
      RESOURCENAME: 'pinned-host', RESOURCETYPE: 'Linux', DNSNAME: '127.0.0.1', ACCOUNTNAME: sshAdmin, PASSWORD: ADMIN_PASSWORD,
    });
    vaultResourceId = resource.resourceId;
    await request(s.vaultUrl)
      .post(`${V1}/resources/${vaultResourceId}/accounts`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ ACCOUNTLIST: [{ ACCOUNTNAME: user, PASSWORD: USER_PASSWORD }] }) });
    const accounts = await request(s.vaultUrl).get(`${V1}/resources/${vaultResourceId}/accounts`).set('AUTHTOKEN', s.adminToken);
    vaultAccountId = Number(accounts.body.operation.Details['ACCOUNT LIST'].find((a: Record<string, string>) => a['ACCOUNT NAME'] === user)['ACCOUNT ID']);
    const csr = await pki('createCSR', { CNAME: 'pinned.example.test', PASSWORD: 'Key-Pass-9' });
    serial = (await pki('signCSR', { CSR_ID: csr.body.details.CSR_ID })).body.details[0].serialNumber;
  });
  afterAll(async () => {
    await s?.close();
    await sshd?.stop();
  });

  function pki(op: string, details: Record<string, unknown> = {}) {
    return request(s.pkiUrl).post(`${API}/${op}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
  }
  const vaultB = (op: string, details: Record<string, unknown>) =>
    request(s.vaultUrl).post(`${API}/${op}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(details) });
  const configureReset = () =>
    request(s.vaultUrl)
      .put(`${V1}/resources/${vaultResourceId}/remotepasswordreset`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ ACCOUNTNAME: sshAdmin, PORT: String(sshd.port) }) });
  const remoteReset = (password: string) =>
    request(s.vaultUrl)
      .put(`${V1}/resources/${vaultResourceId}/accounts/${vaultAccountId}/password`)
      .set('AUTHTOKEN', s.adminToken)
      .type('form')
      .send({ INPUT_DATA: inputData({ NEWPASSWORD: password, RESETTYPE: 'REMOTE', REASON: 'rotation' }) });
  const deploy = () => pki('deployCertificate', { common_name: 'pinned.example.test', serial_number: serial, serverName: 'web' });
  const discover = () => pki('sshHostDiscovery', { StartIpAddress: '127.0.0.1', EndIpAddress: '127.0.0.1', PORT: String(sshd.port), TIMEOUT: '5' });
  const pins = () => s.dataSource.query('SELECT host, port, key_type, fingerprint, source, refused_fingerprint FROM ssh_host_keys');
  const auditRows = (operation: string) =>
    s.dataSource.query(`SELECT outcome, target, reason, description FROM audit WHERE operation = $1 ORDER BY id`, [operation]);

  /** Every SSH operation, each answering Success (or Success per deployed server). */
  async function everyOperationWorks(): Promise<void> {
    expect((await pki('enumerateusers', { resourceName })).body.result.status).toBe('Success');
    expect((await pki('associateKey', { keyName: 'pin-key', resourceName, userName: user })).body.result.status).toBe('Success');
    expect((await pki('dissociateKey', { keyName: 'pin-key', resourceName, userName: user })).body.result.status).toBe('SUCCESS');
    expect((await vaultB('associateKey', { keyName: 'pin-key', resourceName, userName: user })).body.result.status).toBe('Success');
    expect((await vaultB('dissociateKey', { keyName: 'pin-key', resourceName, userName: user })).body.result.status).toBe('SUCCESS');
    expect((await pki('applycredentials', { userName: sshAdmin, password: ADMIN_PASSWORD, resourceName, isAdmin: 'true' })).body.result.status).toBe('Success');
    expect((await configureReset()).body.operation.result.status).toBe('Success');
    userPassword = `${NEW_PASSWORD}-${userPassword.length}`;
    expect((await remoteReset(userPassword)).body.operation.result).toEqual({ status: 'Success', message: 'Password changed successfully' });
    expect((await deploy()).body.deployStatus[0].status).toBe('Success');
    expect((await discover()).body.details['127.0.0.1'][0]).toBe('SUCCESS');
  }

  it('refuses a fingerprint given up front that the host does not present, before sending the password', async () => {
    const bad = await pki('applycredentials', { userName: sshAdmin, password: ADMIN_PASSWORD, resourceName, isAdmin: 'true', HOSTKEYFINGERPRINT: 'MD5:12:34' });
    expect(bad.body.result).toEqual({
      status: 'Failed',
      message: 'HOSTKEYFINGERPRINT must be a SHA256 fingerprint as ssh-keygen -lf prints it (SHA256: followed by 43 base64 characters)',
    });
    const mark = sshd.log().length;
    const res = await pki('applycredentials', { userName: sshAdmin, password: ADMIN_PASSWORD, resourceName, isAdmin: 'true', HOSTKEYFINGERPRINT: NOT_THE_KEY });
    const presented = await sshd.hostKeyFingerprint();
    expect(res.body.result.status).toBe('Failed');
    expect(res.body.result.message).toContain(`Credentials for ${resourceName} were not applied: The SSH host key of ${resourceName} does not match`);
    expect(res.body.result.message).toContain(`expected ${NOT_THE_KEY}, presented ${presented}`);
    expect(sshd.log().slice(mark)).not.toMatch(/password/i);
    expect(await pins()).toEqual([]);
    expect(await s.dataSource.query('SELECT id FROM ssh_resources')).toEqual([]);
    expect(await auditRows('SSH Host Key Refused')).toEqual([
      expect.objectContaining({ outcome: 'Failed', target: resourceName, reason: `expected ${NOT_THE_KEY}, presented ${presented}` }),
    ]);
  });

  it('pins the fingerprint given up front, shows it in the listing, and every SSH operation works', async () => {
    const fingerprint = await sshd.hostKeyFingerprint();
    const res = await pki('applycredentials', { userName: sshAdmin, password: ADMIN_PASSWORD, resourceName, isAdmin: 'true', HOSTKEYFINGERPRINT: fingerprint });
    expect(res.body.result.status).toBe('Success');
    expect(await pins()).toEqual([{ host: '127.0.0.1', port: sshd.port, key_type: 'ssh-ed25519', fingerprint, source: 'operator', refused_fingerprint: null }]);
    const list = await request(s.pkiUrl).get(`${API}/getAllSSHResourceDetails`).set('AUTHTOKEN', s.adminToken);
    expect(list.body.details[0]).toMatchObject({ ResourceName: resourceName, HOSTKEYFINGERPRINT: fingerprint });

    expect((await pki('createsshkey', { keyName: 'pin-key', keyType: 'ed25519' })).body.result.status).toBe('Success');
    const saved = await pki('saveDeploymentTarget', { serverName: 'web', resourceName, certificatePath: `${sshd.homeOf(sshAdmin)}/web/cert.pem`, keyPath: `${sshd.homeOf(sshAdmin)}/web/key.pem` });
    expect(saved.body.result.status).toBe('Success');
    await everyOperationWorks();
    expect((await discover()).body.details['127.0.0.1'][1]).toContain(`host key ssh-ed25519 ${fingerprint}`);
  });

  it('after the host key changes, every SSH operation refuses, naming both fingerprints, and sends no password', async () => {
    const recorded = await sshd.hostKeyFingerprint();
    await sshd.regenerateHostKey();
    const presented = await sshd.hostKeyFingerprint();
    expect(presented).not.toBe(recorded);
    const mismatch = `expected ${recorded}, presented ${presented}`;
    const refusedBefore = (await auditRows('SSH Host Key Refused')).length;
    const mark = sshd.log().length;

    const failures: Array<[string, { status: string; message: string }]> = [
      ['enumerateusers', (await pki('enumerateusers', { resourceName })).body.result],
      ['associateKey', (await pki('associateKey', { keyName: 'pin-key', resourceName, userName: user })).body.result],
      ['dissociateKey', (await pki('dissociateKey', { keyName: 'pin-key', resourceName, userName: user })).body.result],
      ['vault associateKey', (await vaultB('associateKey', { keyName: 'pin-key', resourceName, userName: user })).body.result],
      ['applycredentials', (await pki('applycredentials', { userName: sshAdmin, password: ADMIN_PASSWORD, resourceName, isAdmin: 'true' })).body.result],
      ['configure remote reset', (await configureReset()).body.operation.result],
      ['remote reset', (await remoteReset(`${NEW_PASSWORD}-refused`)).body.operation.result],
    ];
    for (const [operation, result] of failures) {
      expect([operation, result.status]).toEqual([operation, 'Failed']);
      expect([operation, result.message]).toEqual([operation, expect.stringContaining(mismatch)]);
    }
    const deployed = (await deploy()).body.deployStatus[0];
    expect(deployed.status).toBe('Failure');
    expect(deployed.message).toContain(mismatch);
    const discovered = (await discover()).body.details['127.0.0.1'];
    expect(discovered[0]).toBe('FAILURE');
    expect(discovered[1]).toContain(mismatch);

    // Nothing reached authentication: sshd saw key exchanges only.
    expect(sshd.log().slice(mark)).not.toMatch(/password|Accepted|Failed/i);
    expect(sshd.log().slice(mark)).toMatch(/Connection (closed|reset) by 127\.0\.0\.1/);
    const refused = (await auditRows('SSH Host Key Refused')).slice(refusedBefore);
    expect(refused.length).toBeGreaterThanOrEqual(failures.length + 2);
    for (const row of refused) expect(row).toMatchObject({ outcome: 'Failed', target: resourceName, reason: mismatch });
    expect(JSON.stringify(refused)).not.toContain(ADMIN_PASSWORD);
    expect(await pins()).toEqual([expect.objectContaining({ fingerprint: recorded, refused_fingerprint: presented })]);
    // The refused reset changed nothing: the account's password on the host is the one the vault holds.
    expect((await sshd.clientLogin(user, { password: userPassword })).ok).toBe(true);
  });

  it('acceptSshHostKey (pki) pins the key the host presented, audited; every operation works again', async () => {
    const presented = await sshd.hostKeyFingerprint();
    const res = await pki('acceptSshHostKey', { resourceName });
    expect(res.body).toEqual({
      name: 'AcceptSshHostKey',
      result: { status: 'Success', message: `Host key ${presented} accepted for ${resourceName}` },
      details: { HOST: '127.0.0.1', PORT: sshd.port, HOSTKEYFINGERPRINT: presented },
    });
    expect(await pins()).toEqual([{ host: '127.0.0.1', port: sshd.port, key_type: 'ssh-ed25519', fingerprint: presented, source: 'accepted', refused_fingerprint: null }]);
    expect(await auditRows('SSH Host Key Accepted')).toEqual([expect.objectContaining({ outcome: 'Success', target: resourceName })]);
    const again = await pki('acceptSshHostKey', { resourceName });
    expect(again.body.result).toEqual({
      status: 'Failed',
      message: `${resourceName} has presented no new host key to accept; give HOSTKEYFINGERPRINT (as ssh-keygen -lf prints it) to pin one`,
    });
    await everyOperationWorks();
  });

  it('acceptSshHostKey on the vault takes a fingerprint given by the operator', async () => {
    await sshd.regenerateHostKey();
    const presented = await sshd.hostKeyFingerprint();
    expect((await pki('enumerateusers', { resourceName })).body.result.status).toBe('Failed');
    const wrong = await vaultB('acceptSshHostKey', { resourceName, HOSTKEYFINGERPRINT: 'nonsense' });
    expect(wrong.body.result.status).toBe('Failed');
    const res = await vaultB('acceptSshHostKey', { resourceName, HOSTKEYFINGERPRINT: presented });
    expect(res.body.name).toBe('AcceptSshHostKey');
    expect(res.body.result).toEqual({ status: 'Success', message: `Host key ${presented} accepted for ${resourceName}` });
    expect((await pki('enumerateusers', { resourceName })).body.result.status).toBe('Success');
  });

  it('the admin command accept-host-key does the same, and list-host-keys shows the record', async () => {
    await sshd.regenerateHostKey();
    const presented = await sshd.hostKeyFingerprint();
    expect((await pki('enumerateusers', { resourceName })).body.result.status).toBe('Failed');
    const listed = (await admin(s.databaseUrl, 'list-host-keys')).join('\n');
    expect(listed).toContain(`127.0.0.1:${sshd.port}`);
    expect(listed).toContain(`REFUSED ${presented}`);
    expect(await admin(s.databaseUrl, 'accept-host-key', '--host', resourceName)).toEqual([`Accepted host key ${presented} for ${resourceName}.`]);
    expect((await pki('enumerateusers', { resourceName })).body.result.status).toBe('Success');
    const accepted = await auditRows('SSH Host Key Accepted');
    expect(accepted[accepted.length - 1].description).toContain(`accepted: ${presented}`);
  });
});
