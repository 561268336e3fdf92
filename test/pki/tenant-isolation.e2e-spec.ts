import { Keyring } from '@app/crypto';
import { SSH_PASSWORD_CONTEXT } from '@app/pki/cert-service/deployment.service';
import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { API, binary, client, Tools } from './cert-e2e-helpers';

const KEY = 'shared-key';
const CERT = 'shared.example.test';
const CA = 'Shared CA';
const VAULT_KEY = 'shared-vault-key';
const TARGET = 'shared-target';

interface Org {
  name: 'A' | 'B';
  orgId: number;
  token: string;
  /** What only this organisation's objects hold. */
  sshPassphrase: string;
  certPassword: string;
  vaultContent: string;
  csrId?: number;
}

/**
 * Issue 11: two organisations hold pki objects with the same names (SSH key, certificate,
 * CA, key vault key, deployment target and its SSH resource, PGP key of a user "admin");
 * every operation of one, on both presentations, reaches only its own.
 */
describe('pki tenant isolation: two organisations, identical names', () => {
  let s: TestServices;
  const tools = new Tools();
  const orgs: Org[] = [];
  const [a, b] = [() => orgs[0]!, () => orgs[1]!];
  const other = (org: Org) => (org === orgs[0] ? orgs[1]! : orgs[0]!);
  const api = (org: Org, presentation: 'pki' | 'vault' = 'pki') => client(() => (presentation === 'pki' ? s.pkiUrl : s.vaultUrl), () => org.token);
  const raw = (org: Org, presentation: 'pki' | 'vault', method: 'get' | 'post' | 'delete', op: string, details: Record<string, unknown>) =>
    request(presentation === 'pki' ? s.pkiUrl : s.vaultUrl)[method](`${API}/${op}`).set('AUTHTOKEN', org.token).query({ INPUT_DATA: inputData(details) }).buffer(true).parse(binary);
  const text = async (res: Promise<request.Response>) => (await res).body.toString('latin1') as string;

  beforeAll(async () => {
    s = await startTestServices();
    const [defaultOrg] = await s.dataSource.query(`SELECT id FROM organizations WHERE name = 'Default'`);
    const orgB = await createOrgWithAdmin(s, 'Second Org');
    orgs.push(
      { name: 'A', orgId: defaultOrg.id, token: s.adminToken, sshPassphrase: 'A-ssh-Pass-1', certPassword: 'A-cert-Pass-1', vaultContent: 'vault content of A' },
      { name: 'B', orgId: orgB.orgId, token: orgB.token, sshPassphrase: 'B-ssh-Pass-1', certPassword: 'B-cert-Pass-1', vaultContent: 'vault content of B' },
    );
    for (const org of orgs) {
      const p = api(org);
      expect((await p.post('createsshkey', { keyName: KEY, keyType: 'ed25519', passPhrase: org.sshPassphrase })).body.result.status).toBe('Success');
      expect((await p.post('createCertificate', { CNAME: CERT, PASSWORD: org.certPassword })).body.result.status).toBe('Success');
      expect((await p.post('createCA', { caName: CA, caType: 'root', CNAME: `${CA} of ${org.name}` })).body.result.status).toBe('Success');
      const vault = await request(s.pkiUrl).post(`${API}/addKeyStoreKey`).set('AUTHTOKEN', org.token)
        .field('INPUT_DATA', inputData({ keyName: VAULT_KEY })).attach('File', Buffer.from(org.vaultContent), 'k.bin');
      expect(vault.body.result.Status).toBe('Success');
      // The SSH resource as applycredentials would have saved it: no sshd listens on 2222, and a new login is tested before it is saved (issue 35).
      const resourceName = await sshResource(s, org.orgId, 2222, `deploy-${org.name}`, `Deploy-${org.name}-1`);
      const target = await p.post('saveDeploymentTarget', {
        serverName: TARGET, resourceName, certificatePath: `/etc/${org.name}/cert.pem`, keyPath: `/etc/${org.name}/key.pem`,
      });
      expect(target.body.result.status ?? target.body.result.Status).toBe('Success');
      const csr = await p.post('createCSR', { CNAME: `csr-${org.name}.example.test` });
      org.csrId = csr.body.details.CSR_ID;
    }
  });
  afterAll(async () => {
    await s?.close();
    tools.remove();
  });

  describe.each(['pki', 'vault'] as const)('on the %s presentation', (presentation) => {
    it('lists and reads only its own SSH key, certificate and their secrets', async () => {
      for (const org of orgs) {
        const keys = await api(org, presentation).get('getAllSSHKeys');
        const own = (await s.dataSource.query('SELECT fingerprint FROM ssh_keys WHERE org_id = $1', [org.orgId]))[0].fingerprint;
        expect(JSON.stringify(keys.body)).toContain(own);
        expect(JSON.stringify(keys.body)).not.toContain((await s.dataSource.query('SELECT fingerprint FROM ssh_keys WHERE org_id <> $1', [org.orgId]))[0].fingerprint);
        const passphrase = await text(raw(org, presentation, 'get', 'getCertificatePassphrase', { common_name: CERT }));
        expect(passphrase).toContain(org.certPassword);
        expect(passphrase).not.toContain(other(org).certPassword);
        const exported = await text(raw(org, presentation, 'post', 'exportSSHKey', { keyName: KEY, keyExportType: 'public' }));
        const ownPublic = (await s.dataSource.query('SELECT public_key FROM ssh_keys WHERE org_id = $1', [org.orgId]))[0].public_key;
        expect(exported.trim()).toBe(ownPublic.trim());
        const store = (await raw(org, presentation, 'get', 'getCertificateKeyStore', { common_name: CERT })).body as Buffer;
        tools.file(`${presentation}-${org.name}.p12`, store);
        expect(tools.opensslVerdict('pkcs12', '-in', `${presentation}-${org.name}.p12`, '-passin', `pass:${org.certPassword}`, '-nokeys', '-legacy')).toContain(`CN = ${CERT}`);
        const details = await api(org, presentation).get('getCertificateDetails', { common_name: CERT });
        const ownSerial = (await s.dataSource.query('SELECT serial_number FROM certificates WHERE org_id = $1 AND common_name = $2', [org.orgId, CERT]))[0].serial_number;
        expect(JSON.stringify(details.body)).toContain(ownSerial);
      }
    });
  });

  it('reads its own SSH key passphrase, key vault key and admin PGP key (pki only)', async () => {
    const fingerprints: string[] = [];
    for (const org of orgs) {
      const passphrase = await text(raw(org, 'pki', 'get', 'getSSHKeyPassphrase', { keyName: KEY }));
      expect(passphrase).toContain(org.sshPassphrase);
      expect(passphrase).not.toContain(other(org).sshPassphrase);
      expect(await text(raw(org, 'pki', 'post', 'exportKeyStoreKey', { keyName: VAULT_KEY }))).toBe(org.vaultContent);
      expect(await text(raw(org, 'pki', 'get', 'getPGPKey', { User: 'admin', keyExportType: 'public' }))).toContain('PUBLIC KEY BLOCK');
      const [row] = await s.dataSource.query(
        `SELECT k.fingerprint FROM pgp_keys k JOIN users u ON u.id = k.user_id WHERE u.org_id = $1 AND u.username = 'admin'`,
        [org.orgId],
      );
      fingerprints.push(row.fingerprint);
    }
    expect(new Set(fingerprints).size).toBe(2);
  });

  it('signs with its own CA of the shared name, and cannot sign another organisation’s CSR', async () => {
    for (const org of orgs) {
      const signed = await api(org).post('signCSR', { CSR_ID: org.csrId, caName: CA });
      expect(signed.body.result.status).toBe('Success');
      tools.file(`leaf-${org.name}.pem`, signed.body.details[0].certificate);
      for (const owner of orgs) {
        const [ca] = await s.dataSource.query('SELECT certificate_pem FROM certificate_authorities WHERE org_id = $1 AND name = $2', [owner.orgId, CA]);
        tools.file(`ca-${owner.name}.pem`, ca.certificate_pem);
        const verdict = tools.opensslVerdict('verify', '-CAfile', `ca-${owner.name}.pem`, `leaf-${org.name}.pem`);
        expect(verdict.includes(`leaf-${org.name}.pem: OK`)).toBe(owner === org);
      }
      const foreign = await api(org).post('signCSR', { CSR_ID: other(org).csrId, caName: CA });
      expect(foreign.body.result).toEqual({ status: 'Failed', message: `No CSR with CSR_ID ${other(org).csrId} was found` });
      const list = await api(org).get('getCSRList');
      expect(JSON.stringify(list.body)).not.toContain(`csr-${other(org).name}.example.test`);
    }
  });

  it('sees only its own deployment target and SSH resource of the shared name', async () => {
    for (const org of orgs) {
      const resources = await api(org).get('getAllSSHResourceDetails');
      expect(resources.body.totalRows).toBe(1);
      const rows = await s.dataSource.query(
        `SELECT t.key_path, r.login_user FROM deployment_targets t JOIN ssh_resources r ON r.id = t.ssh_resource_id WHERE t.org_id = $1`,
        [org.orgId],
      );
      expect(rows).toEqual([{ key_path: `/etc/${org.name}/key.pem`, login_user: `deploy-${org.name}` }]);
    }
  });

  it('a discovery job of one organisation is unknown to the other', async () => {
    const [job] = await s.dataSource.query(
      `INSERT INTO jobs (org_id, kind, status, total, done, result) VALUES ($1, 'ssl-discovery', 'done', 1, 1, '{}') RETURNING id`,
      [a().orgId],
    );
    expect((await api(a()).get('getDiscoveryStatus', { jobId: String(job.id) })).body.result.status).toBe('Success');
    const res = await api(b()).get('getDiscoveryStatus', { jobId: String(job.id) });
    expect(res.body.result).toEqual({ status: 'Failed', message: `No discovery job with id ${job.id}` });
  });

  it('changes and deletes only its own objects (B acts; A’s stay as they were)', async () => {
    const count = (table: string, where = '') => s.dataSource.query(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1 ${where}`, [a().orgId]);
    const before = {
      key: await count('ssh_keys'),
      cert: await count('certificates', `AND common_name = '${CERT}'`),
      vault: await count('key_vault_keys'),
      target: await s.dataSource.query('SELECT key_path FROM deployment_targets WHERE org_id = $1', [a().orgId]),
    };
    const update = await request(s.pkiUrl).post(`${API}/updateKeyStoreKey`).set('AUTHTOKEN', b().token)
      .field('INPUT_DATA', inputData({ keyName: VAULT_KEY, description: 'changed by B' })).attach('File', Buffer.from('new content of B'), 'k.bin');
    expect(update.body.result.Status).toBe('Success');
    const resaved = await api(b()).post('saveDeploymentTarget', {
      serverName: TARGET, resourceName: await sshResource(s, b().orgId, 2223, 'deploy-B', 'Deploy-B-2'), certificatePath: '/etc/B2/cert.pem', keyPath: '/etc/B2/key.pem',
    });
    expect(resaved.body.result.status ?? resaved.body.result.Status).toBe('Success');
    expect(await text(raw(a(), 'pki', 'post', 'exportKeyStoreKey', { keyName: VAULT_KEY }))).toBe(a().vaultContent);

    expect((await raw(b(), 'vault', 'delete', 'deleteSSHKey', { key_name: KEY, withoutDisassociation: 'true' })).status).toBe(200);
    expect((await raw(b(), 'vault', 'delete', 'deleteCertificate', { common_name: CERT })).status).toBe(200);
    expect((await raw(b(), 'pki', 'delete', 'deleteKeyStoreKey', { keyName: VAULT_KEY })).status).toBe(200);
    expect(await s.dataSource.query('SELECT count(*)::int AS n FROM ssh_keys WHERE org_id = $1', [b().orgId])).toEqual([{ n: 0 }]);
    expect(await s.dataSource.query('SELECT count(*)::int AS n FROM key_vault_keys WHERE org_id = $1', [b().orgId])).toEqual([{ n: 0 }]);

    expect(await count('ssh_keys')).toEqual(before.key);
    expect(await count('certificates', `AND common_name = '${CERT}'`)).toEqual(before.cert);
    expect(await count('key_vault_keys')).toEqual(before.vault);
    expect(await s.dataSource.query('SELECT key_path FROM deployment_targets WHERE org_id = $1', [a().orgId])).toEqual(before.target);
    // B deleted its own: a second delete finds nothing, on either side of B.
    const again = await api(b()).del('deleteSSHKey', { key_name: KEY });
    expect(again.body.result).toEqual({ status: 'Failed', message: `SSH key ${KEY} does not exist` });
  });
});

/** An SSH resource of one organisation, stored as applycredentials stores it (its login sealed). */
async function sshResource(s: TestServices, orgId: number, port: number, login: string, password: string): Promise<string> {
  const name = `127.0.0.1:${port}`;
  await s.dataSource.query(
    `INSERT INTO ssh_resources (org_id, name, name_key, address, port, login_user, login_password) VALUES ($1, $2, lower($2), '127.0.0.1', $3, $4, $5)`,
    [orgId, name, port, login, s.pki.get(Keyring).seal(password, SSH_PASSWORD_CONTEXT)],
  );
  return name;
}
