import { Keyring } from '@app/crypto';
import { SSH_PASSWORD_CONTEXT } from '@app/pki/cert-service/deployment.service';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServices, TestServices } from '../support/app';
import { startSshd, type SshdFixture } from '../support/sshd';
import { client, Tools } from './cert-e2e-helpers';

const PASSWORD = 'Dep1oy-Pass-word';

/** saveDeploymentTarget + deployCertificate, proven by reading the files the real sshd host received. */
describe('pki certificate deployment over SSH (6565 layout)', () => {
  let s: TestServices;
  let sshd: SshdFixture;
  let user: string;
  let home: string;
  let serial: string;
  const tools = new Tools();
  const api = client(() => s.pkiUrl, () => s.adminToken);

  beforeAll(async () => {
    [s, sshd] = await Promise.all([startTestServices(), startSshd()]);
    user = await sshd.createUser(PASSWORD);
    home = sshd.homeOf(user);
    const csr = await api.post('createCSR', { CNAME: 'deploy.example.test', PASSWORD: 'Key-Pass-9' });
    serial = (await api.post('signCSR', { CSR_ID: csr.body.details.CSR_ID })).body.details[0].serialNumber;
  });
  afterAll(async () => {
    await s?.close();
    await sshd?.stop();
    tools.remove();
  });

  const target = (name: string, extra: Record<string, unknown>) =>
    api.post('saveDeploymentTarget', { serverName: name, certificatePath: `${home}/${name}/cert.pem`, keyPath: `${home}/${name}/private/key.pem`, ...extra });

  it('saves a target with new SSH credentials; the password is sealed in ssh_resources', async () => {
    const res = await target('web1', {
      HOST: '127.0.0.1', PORT: sshd.port, userName: user, password: PASSWORD, chainPath: `${home}/web1/chain.pem`, reloadCommand: `touch ${home}/web1/reloaded`,
    });
    expect(res.body).toEqual({ name: 'SaveDeploymentTarget', result: { status: 'Success', message: 'Deployment target web1 saved successfully.' } });
    const [row] = await s.dataSource.query('SELECT name, login_user, login_password FROM ssh_resources');
    expect(row).toMatchObject({ name: `127.0.0.1:${sshd.port}`, login_user: user });
    expect(row.login_password.toString('latin1')).not.toContain(PASSWORD);
  });

  it('saves a second target on the same SSH resource by name, and refuses bad input', async () => {
    const ok = await target('web2', { resourceName: `127.0.0.1:${sshd.port}`, reloadCommand: 'echo reload failed >&2; exit 3' });
    expect(ok.body.result.status).toBe('Success');
    for (const [extra, message] of [
      [{ resourceName: 'nowhere' }, 'No SSH resource named nowhere; give HOST, userName and password to add the server'],
      [{ HOST: '127.0.0.1', userName: user }, 'password is required with HOST'],
      [{ HOST: '127.0.0.1', userName: user, password: 'x', keyPath: 'relative/key.pem' }, 'keyPath must be an absolute file path on the server'],
    ] as const) {
      const res = await target('bad', extra);
      expect(res.body.result).toEqual({ status: 'Failed', message });
    }
  });

  it('deploys to one named server: certificate, chain and key land with safe modes, owned by the login user, then reloads', async () => {
    const res = await api.post('deployCertificate', { common_name: 'deploy.example.test', serial_number: serial, serverName: 'web1' });
    expect(res.body).toEqual({
      name: 'DeployCertificate',
      result: { status: 'Success', message: 'Certificate deployed successfully' },
      totalRows: 1,
      deployStatus: [{ server: 'web1', message: 'Certificate deployed and service reloaded successfully', status: 'Success' }],
    });
    const dir = join(home, 'web1');
    const mode = (p: string) => statSync(join(dir, p)).mode & 0o777;
    expect(mode('cert.pem')).toBe(0o644);
    expect(mode('chain.pem')).toBe(0o644);
    expect(mode('private/key.pem')).toBe(0o600);
    expect(statSync(join(dir, 'private/key.pem')).uid).toBe(statSync(home).uid);
    expect(existsSync(join(dir, 'reloaded'))).toBe(true);
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    expect(cert.match(/BEGIN CERTIFICATE/g)).toHaveLength(1);
    expect(readFileSync(join(dir, 'chain.pem'), 'utf8').match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    tools.file('cert.pem', cert);
    tools.file('key.pem', readFileSync(join(dir, 'private/key.pem')));
    tools.file('chain.pem', readFileSync(join(dir, 'chain.pem')));
    expect(tools.openssl('x509', '-in', 'cert.pem', '-noout', '-serial').trim()).toBe(`serial=${serial}`);
    expect(tools.openssl('pkey', '-in', 'key.pem', '-pubout')).toBe(tools.openssl('x509', '-in', 'cert.pem', '-noout', '-pubkey'));
    expect(tools.openssl('verify', '-CAfile', 'chain.pem', 'cert.pem')).toContain('cert.pem: OK');
  });

  it('deploys to every saved server and reports each; a failing reload fails that server only', async () => {
    const res = await api.post('deployCertificate', { common_name: 'deploy.example.test' });
    expect(res.body).toEqual({
      name: 'DeployCertificate',
      result: { status: 'Failed', message: 'Certificate deployed to 1 of 2 servers' },
      totalRows: 2,
      deployStatus: [
        { server: 'web1', message: 'Certificate deployed and service reloaded successfully', status: 'Success' },
        { server: 'web2', message: 'Files written, but the reload command exited with 3: reload failed', status: 'Failure' },
      ],
    });
    // Without a chain path the certificate file carries the chain too.
    expect(readFileSync(join(home, 'web2', 'cert.pem'), 'utf8').match(/BEGIN CERTIFICATE/g)).toHaveLength(3);
    const audit = await s.dataSource.query(`SELECT outcome FROM audit WHERE operation = 'Certificate Deployed' ORDER BY id`);
    expect(audit.map((r: { outcome: string }) => r.outcome)).toEqual(['Success', 'Success', 'Failed']);
    // The key left through the pki secret gate, audited before it was sent.
    const released = await s.dataSource.query(`SELECT description FROM audit WHERE operation = 'Certificate Exported' AND description LIKE '%deployment to web1, web2%'`);
    expect(released).toHaveLength(1);
  });

  it('reports a server whose login fails, and refuses unknown servers and key-less certificates', async () => {
    // Issue 35: a login that does not work is never saved (it would replace a stored one that does).
    const refused = await target('web3', { HOST: 'localhost', PORT: sshd.port, userName: user, password: 'wrong-password' });
    expect(refused.body.result.status).toBe('Failed');
    expect(refused.body.result.message).toMatch(/^The deployment target web3 was not saved: the login failed/);
    expect(await s.dataSource.query(`SELECT 1 FROM deployment_targets WHERE name = 'web3'`)).toEqual([]);
    // A login that stops working later (the host's password changed) is reported at deployment.
    expect((await target('web3', { HOST: 'localhost', PORT: sshd.port, userName: user, password: PASSWORD })).body.result.status).toBe('Success');
    await s.dataSource.query(`UPDATE ssh_resources SET login_password = $1 WHERE name = 'localhost:' || $2`, [s.pki.get(Keyring).seal('wrong-password', SSH_PASSWORD_CONTEXT), String(sshd.port)]);
    const res = await api.post('deployCertificate', { common_name: 'deploy.example.test', serverName: 'web3' });
    expect(res.body.deployStatus[0]).toMatchObject({ server: 'web3', status: 'Failure' });
    expect(res.body.deployStatus[0].message).toMatch(/auth|password|denied/i);
    const unknown = await api.post('deployCertificate', { common_name: 'deploy.example.test', serverName: 'nope' });
    expect(unknown.body.result).toEqual({ status: 'Failed', message: 'No deployment target named nope is saved' });
    tools.openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'nokey.key', '-subj', '/CN=nokey.example.test', '-out', 'nokey.pem');
    await api.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: readFileSync(join(tools.dir, 'nokey.pem')), name: 'nokey.pem' } });
    const keyless = await api.post('deployCertificate', { common_name: 'nokey.example.test' });
    expect(keyless.body.result).toEqual({ status: 'Failed', message: 'This server does not hold the private key of certificate nokey.example.test' });
  });
});
