import request from 'supertest';
import * as openpgp from 'openpgp';
import { loadConfig } from '@app/config';
import { COMMANDS } from '../../scripts/admin/commands';
import { parseArgs } from '../../scripts/admin/args';
import { openAdminContext } from '../../scripts/admin/context';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { createSelfSignedLeaf, startNodeTlsServer } from '../support/tls-peers';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { API, binary, client, Tools } from './cert-e2e-helpers';

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
 * Issue 38: requests copied from Key Manager Plus's REST documentation and from public KMP
 * clients (docs/api/pki.md, "Key Manager Plus operations"), with the answers they read.
 */
describe('Key Manager Plus operations beyond the spec', () => {
  let s: TestServices;
  const tools = new Tools();
  const api = client(() => s.pkiUrl, () => s.adminToken);
  const vault = client(() => s.vaultUrl, () => s.adminToken);
  let adminId: number;

  beforeAll(async () => {
    s = await startTestServices({ PUBLIC_URL: 'https://pki.example.test:6565' });
    [{ id: adminId }] = await s.dataSource.query(`SELECT id FROM users WHERE username = 'admin' AND org_id = 1`);
    tools.file('root.pem', (await request(s.pkiUrl).get('/ca/root-ca.crt')).text);
    tools.file('issuing.pem', (await request(s.pkiUrl).get('/ca/issuing-ca.crt')).text);
  });
  afterAll(async () => {
    await s?.close();
    tools.remove();
  });

  const createCertificate = async (cn: string) => {
    const res = await api.post('createCertificate', { CNAME: cn, PASSWORD: 'Kmp-Pass-1' });
    expect(res.body.result.status).toBe('Success');
    return res.body.details as { Certificate_ID: number; serialNumber: string; SSL_RESOURCEID: number };
  };
  const createCsr = async (cn: string, extra: Record<string, unknown> = {}) => {
    const res = await api.post('createCSR', { CNAME: cn, PASSWORD: 'Csr-Pass-1', ...extra });
    expect(res.body.result.status).toBe('Success');
    return res.body.details as { CSR_ID: number; CSR: string };
  };
  const listed = async (cn: string, details: Record<string, unknown> = {}) =>
    ((await api.get('getAllSSLCertificates', details)).body.details as Record<string, unknown>[]).filter((e) => e['Common Name'] === cn);

  describe('K1 updateSSLCertificateDetails and K2 updateSSLAdditionalFields', () => {
    beforeAll(async () => {
      expect(await admin(s.databaseUrl, 'certificate-field', '--name', 'Owner')).toEqual(['Additional field Owner is defined (text).']);
      expect(await admin(s.databaseUrl, 'certificate-field', '--name', 'Tier', '--options', 'Gold,Silver')).toEqual(['Additional field Tier is defined (one of: Gold, Silver).']);
      expect(await admin(s.databaseUrl, 'certificate-fields')).toEqual([expect.stringMatching(/^Owner\s+text$/), expect.stringMatching(/^Tier\s+one of: Gold, Silver$/)]);
      await createCertificate('books.example.test');
    });

    it('K1 sets the bookkeeping, shown in the list and the details; the certificate itself is untouched', async () => {
      const [before] = await s.dataSource.query(`SELECT certificate_pem, fingerprint FROM certificates WHERE common_name = 'books.example.test'`);
      const res = await api.post('updateSSLCertificateDetails', {
        common_name: 'books.example.test',
        description: 'Public web site',
        dns_name: 'www.books.example.test',
        email_address: 'pki-team@example.test',
        isAutoDeploy: 'true',
        sslAdditionalFieldData: [{ ADDITIONALFIELDNAME: 'Owner', ADDITIONALFIELDVALUE: 'web team' }, { ADDITIONALFIELDNAME: 'tier', ADDITIONALFIELDVALUE: 'gold' }],
      });
      expect(res.body).toEqual({ name: 'updateSslDetails', result: { status: 'Success', message: 'SSL Certificate books.example.test details updated successfully.' } });
      const [entry] = await listed('books.example.test');
      expect(entry).toMatchObject({
        'DNS Name/FQDN': 'www.books.example.test',
        Description: 'Public web site',
        'Expiry Notification Email': 'pki-team@example.test',
        sslAdditionalFieldData: [
          { ADDITIONALFIELDNAME: 'Owner', ADDITIONALFIELDVALUE: 'web team' },
          { ADDITIONALFIELDNAME: 'Tier', ADDITIONALFIELDVALUE: 'Gold' },
        ],
      });
      const details = (await api.get('getCertificateDetails', { common_name: 'books.example.test' })).body.details[0];
      expect(details).toMatchObject({ Description: 'Public web site', isAutoDeploy: true, endpoint: { hostName: 'www.books.example.test', isCLOUDHOST: false, isAWS: false } });
      const [after] = await s.dataSource.query(`SELECT certificate_pem, fingerprint, auto_deploy FROM certificates WHERE common_name = 'books.example.test'`);
      expect(after).toEqual({ ...before, auto_deploy: true });
      const audit = await s.dataSource.query(`SELECT actor_id, target, description FROM audit WHERE operation = 'Certificate Details Updated'`);
      expect(audit).toEqual([
        { actor_id: adminId, target: 'books.example.test', description: expect.stringMatching(/: description, dns_name, email_address, isAutoDeploy true, Owner=web team, Tier=Gold$/) },
      ]);
    });

    it('refuses an unknown field, a value outside a drop-down and a bad address, naming it, with nothing written', async () => {
      const refused = [
        [{ description: 'changed', sslAdditionalFieldData: [{ ADDITIONALFIELDNAME: 'Colour', ADDITIONALFIELDVALUE: 'red' }] }, 'No additional field named Colour (defined: Owner, Tier)'],
        [{ description: 'changed', sslAdditionalFieldData: [{ ADDITIONALFIELDNAME: 'Tier', ADDITIONALFIELDVALUE: 'Bronze' }] }, 'Bronze is not an option of additional field Tier (options: Gold, Silver)'],
        [{ description: 'changed', email_address: 'not-an-address' }, 'email_address: "not-an-address" is not an email address'],
        [{ description: 'changed', sslAdditionalFieldData: 'Owner=x' }, 'sslAdditionalFieldData must be a list of {ADDITIONALFIELDNAME, ADDITIONALFIELDVALUE}'],
        [{}, 'Nothing to update: give description, dns_name, email_address, isAutoDeploy or sslAdditionalFieldData'],
      ] as const;
      for (const [details, message] of refused) {
        const res = await api.post('updateSSLCertificateDetails', { common_name: 'books.example.test', ...details });
        expect(res.body.result).toEqual({ status: 'Failed', message });
      }
      const [row] = await s.dataSource.query(`SELECT description FROM certificates WHERE common_name = 'books.example.test'`);
      expect(row.description).toBe('Public web site');
      expect((await api.post('updateSSLCertificateDetails', { common_name: 'nothing.example.test', description: 'x' })).body.result).toEqual({
        status: 'Failed',
        message: 'No certificate with common name nothing.example.test was found',
      });
    });

    it('K2 sets and clears field values; a Password Auditor and another organisation are refused', async () => {
      const serialNumber = (await api.get('getCertificateDetails', { common_name: 'books.example.test' })).body.details[0].endpoint.serial as string;
      const res = await api.post('updateSSLAdditionalFields', {
        common_name: 'books.example.test',
        serial_number: serialNumber,
        sslAdditionalFieldData: [{ ADDITIONALFIELDNAME: 'Owner', ADDITIONALFIELDVALUE: '' }, { ADDITIONALFIELDNAME: 'Tier', ADDITIONALFIELDVALUE: 'Silver' }],
      });
      expect(res.body).toEqual({ name: 'updateSSLAdditionalFields', result: { status: 'Success', message: 'Additional field details updated successfully for books.example.test' } });
      expect((await listed('books.example.test'))[0].sslAdditionalFieldData).toEqual([{ ADDITIONALFIELDNAME: 'Tier', ADDITIONALFIELDVALUE: 'Silver' }]);
      expect((await api.post('updateSSLAdditionalFields', { common_name: 'books.example.test' })).body.result).toEqual({
        status: 'Failed',
        message: 'sslAdditionalFieldData is required: a list of {ADDITIONALFIELDNAME, ADDITIONALFIELDVALUE}',
      });
      const auditor = await createUserWithToken(s, 'kmp-auditor', 'Password Auditor');
      const other = await createOrgWithAdmin(s, 'KMP Other');
      const data = { common_name: 'books.example.test', sslAdditionalFieldData: [{ ADDITIONALFIELDNAME: 'Tier', ADDITIONALFIELDVALUE: 'Gold' }] };
      const asAuditor = await request(s.pkiUrl).post(`${API}/updateSSLAdditionalFields`).set('AUTHTOKEN', auditor.token).type('form').send({ INPUT_DATA: inputData(data) });
      expect(asAuditor.body.result.status).toBe('Failed');
      const asOther = await request(s.pkiUrl).post(`${API}/updateSSLAdditionalFields`).set('AUTHTOKEN', other.token).type('form').send({ INPUT_DATA: inputData(data) });
      expect(asOther.body.result).toEqual({ status: 'Failed', message: 'No certificate with common name books.example.test was found' });
      expect((await listed('books.example.test'))[0].sslAdditionalFieldData).toEqual([{ ADDITIONALFIELDNAME: 'Tier', ADDITIONALFIELDVALUE: 'Silver' }]);
    });

    it('the vault serves K1 and K2 on its certificate subset too', async () => {
      const res = await vault.post('updateSSLCertificateDetails', { common_name: 'books.example.test', description: 'Set through the vault' });
      expect(res.body).toMatchObject({ name: 'updateSslDetails', result: { status: 'Success' } });
      const [row] = await s.dataSource.query(`SELECT description FROM certificates WHERE common_name = 'books.example.test'`);
      expect(row.description).toBe('Set through the vault');
    });

    it('removing a field removes its values', async () => {
      expect(await admin(s.databaseUrl, 'certificate-field', '--name', 'tier', '--remove')).toEqual(['Additional field tier and its values are removed.']);
      expect((await listed('books.example.test'))[0].sslAdditionalFieldData).toEqual([]);
      const audit = await s.dataSource.query(`SELECT operation, target FROM audit WHERE operation LIKE 'SSL Additional Field%' ORDER BY id`);
      expect(audit.map((a: { operation: string }) => a.operation)).toEqual(['SSL Additional Field Defined', 'SSL Additional Field Defined', 'SSL Additional Field Removed']);
    });
  });

  describe('K3 exportCSR', () => {
    let csr: { CSR_ID: number; CSR: string };
    beforeAll(async () => {
      csr = await createCsr('export.example.test', { ALG: 'RSA', LEN: '2048' });
    });

    it('CSR: the request itself, which openssl verifies (no secret, no audit row)', async () => {
      const file = await api.download('exportCSR', { CSR_ID: String(csr.CSR_ID), fileType: 'CSR' });
      expect(file.body.toString()).toBe(csr.CSR);
      expect(file.disposition).toContain('export.example.test.csr');
      tools.file('export.csr', file.body);
      expect(tools.openssl('req', '-in', 'export.csr', '-verify', '-noout')).toMatch(/verify OK/);
      expect(await s.dataSource.query(`SELECT 1 FROM audit WHERE operation = 'CSR Exported'`)).toEqual([]);
    });

    it('PrivateKey: the key, encrypted with the CSR password, whose public key is the request\'s; audited', async () => {
      const file = await api.download('exportCSR', { CSR_ID: csr.CSR_ID, fileType: 'PrivateKey' });
      expect(file.body.toString()).toContain('-----BEGIN ENCRYPTED PRIVATE KEY-----');
      tools.file('export.key', file.body);
      const fromKey = tools.openssl('pkey', '-in', 'export.key', '-passin', 'pass:Csr-Pass-1', '-pubout');
      const fromCsr = tools.openssl('req', '-in', 'export.csr', '-noout', '-pubkey');
      expect(fromKey).toBe(fromCsr);
      const audit = await s.dataSource.query(`SELECT outcome, target, description FROM audit WHERE operation = 'CSR Exported'`);
      expect(audit).toEqual([{ outcome: 'Success', target: 'export.example.test', description: `Released: csr-private-key of CSR export.example.test (CSR_ID ${csr.CSR_ID}, fileType PrivateKey)` }]);
      expect(JSON.stringify(audit)).not.toContain('Csr-Pass-1');
    });

    it('KeyStore: a PKCS#12 holding the key, under the CSR password', async () => {
      const file = await api.download('exportCSR', { CSR_ID: String(csr.CSR_ID), fileType: 'KeyStore' });
      expect(file.type).toContain('application/x-pkcs12');
      tools.file('export.p12', file.body);
      const keyOut = tools.openssl('pkcs12', '-in', 'export.p12', '-passin', 'pass:Csr-Pass-1', '-nocerts', '-nodes');
      tools.file('p12.key', keyOut);
      expect(tools.openssl('pkey', '-in', 'p12.key', '-pubout')).toBe(tools.openssl('req', '-in', 'export.csr', '-noout', '-pubkey'));
      expect(tools.openssl('pkcs12', '-in', 'export.p12', '-passin', 'pass:Csr-Pass-1', '-nokeys')).toContain('subject=CN = export.example.test');
    });

    it('a CSR imported without its key has only the request; other organisations and auditors are refused, audited', async () => {
      tools.openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'bare.key', '-subj', '/CN=bare.example.test', '-out', 'bare.csr');
      const imported = await api.upload('importCSR', {}, { CSR: { body: tools.openssl('req', '-in', 'bare.csr'), name: 'bare.csr' } });
      const id = imported.body.details.CSR_ID;
      const key = await api.download('exportCSR', { CSR_ID: String(id), fileType: 'PrivateKey' });
      expect(JSON.parse(key.body.toString()).result).toEqual({ status: 'Failed', message: `CSR ${id} (bare.example.test) was imported without its private key; only fileType CSR can be exported` });
      const other = await createOrgWithAdmin(s, 'KMP CSR Other');
      const auditor = await createUserWithToken(s, 'kmp-csr-auditor', 'Password Auditor');
      for (const [token, message] of [[other.token, `No CSR with CSR_ID ${csr.CSR_ID} was found`], [auditor.token, 'Your role (Password Auditor) does not allow this operation']]) {
        const res = await request(s.pkiUrl).get(`${API}/exportCSR`).set('AUTHTOKEN', token).query({ INPUT_DATA: inputData({ CSR_ID: String(csr.CSR_ID), fileType: 'PrivateKey' }) }).buffer(true).parse(binary);
        expect(JSON.parse(res.body.toString()).result).toEqual({ status: 'Failed', message });
      }
      const refusals = await s.dataSource.query(`SELECT outcome FROM audit WHERE operation = 'CSR Exported' AND outcome = 'Failed'`);
      expect(refusals).toHaveLength(2);
      expect((await api.get('exportCSR', { CSR_ID: 'x' })).body.result).toEqual({ status: 'Failed', message: 'CSR_ID must be a whole number' });
      expect((await api.get('exportCSR', { CSR_ID: '1', fileType: 'Certificate' })).body.result).toEqual({ status: 'Failed', message: 'fileType must be one of: CSR, PrivateKey, KeyStore' });
    });

    it('the vault serves exportCSR on its certificate subset too', async () => {
      const file = await vault.download('exportCSR', { CSR_ID: String(csr.CSR_ID) });
      expect(file.body.toString()).toBe(csr.CSR);
    });

    it('getCSRList entries carry LOGIN_ID, the creator\'s user id', async () => {
      const list = (await api.get('getCSRList')).body.GeneratedList as { CSR_ID: number; LOGIN_ID: number }[];
      expect(list.find((e) => e.CSR_ID === csr.CSR_ID)).toMatchObject({ LOGIN_ID: adminId, CREATED_BY: 'admin' });
    });
  });

  describe('K4 revokeMSCACertificate and K5 MSCAusingAgent', () => {
    let signed: { commonName: string; serialNumber: string };

    it('K5: signCSR with MSCAusingAgent (agentName, agentResponseTimeout as a number) signs with our issuing CA', async () => {
      const csr = await createCsr('agent.example.test');
      const res = await api.post('signCSR', { signType: 'MSCAusingAgent', CSR_ID: String(csr.CSR_ID), caName: 'issuing-ca', agentName: 'win-agent-1', agentResponseTimeout: 90, templateName: 'WebServer' });
      expect(res.body).toMatchObject({ name: 'SignCSR', result: { status: 'Success' } });
      signed = res.body.details[0];
      const pem = (await api.download('getCertificate', { common_name: 'agent.example.test', serial_number: signed.serialNumber, fileType: 'CRT' })).body;
      tools.file('agent.pem', pem);
      expect(tools.openssl('verify', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem', 'agent.pem')).toContain('agent.pem: OK');
      const unknown = await api.post('signCSR', { signType: 'MSCA', CSR_ID: String(csr.CSR_ID), templateName: 'DomainController' });
      expect(unknown.body.result.status).toBe('Failed');
      expect(unknown.body.result.message).toMatch(/DomainController.*WebServer.*ClientAuthentication.*CodeSigning/);
    });

    it('K4: revokes with the same revocation as p43, answers JSON, and the CRL lists it', async () => {
      const res = await api.post('revokeMSCACertificate', { common_name: 'agent.example.test', serial_number: signed.serialNumber, revoke_reason: 1 });
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.body).toEqual({ name: 'RevokeMSCACertificate', result: { status: 'Success', message: 'Certificate agent.example.test revoked successfully with reason Key compromise.' } });
      const crl = await request(s.pkiUrl).get('/crl/issuing-ca.crl').buffer(true).parse(binary);
      tools.file('issuing.crl', crl.body);
      const text = tools.openssl('crl', '-inform', 'DER', '-in', 'issuing.crl', '-noout', '-text');
      expect(text).toContain(`Serial Number: ${signed.serialNumber}`);
      expect(text).toMatch(/CRL Reason Code:\s*\n\s*Key Compromise/);
      const again = await api.post('revokeMSCACertificate', { common_name: 'agent.example.test', serial_number: signed.serialNumber, revoke_reason: '4' });
      expect(again.body.result).toEqual({ status: 'Failed', message: `Certificate agent.example.test (serial number ${signed.serialNumber}) is already revoked` });
      const audit = await s.dataSource.query(`SELECT reason FROM audit WHERE operation = 'Certificate Revoked' AND target = 'agent.example.test'`);
      expect(audit).toEqual([{ reason: 'Key compromise (1)' }]);
    });

    it('K4 refuses a certificate none of our CAs issued', async () => {
      const self = await createCertificate('selfsigned.example.test');
      const res = await api.post('revokeMSCACertificate', { common_name: 'selfsigned.example.test', serial_number: self.serialNumber, revoke_reason: 0 });
      expect(res.body).toEqual({
        name: 'RevokeMSCACertificate',
        result: { status: 'Failed', message: `Certificate selfsigned.example.test (serial number ${self.serialNumber}) was not issued by a certificate authority of this server and cannot be revoked here` },
      });
    });
  });

  describe('§4 differences', () => {
    it('createCertificate answers SSL_RESOURCEID (our certificate id) beside the spec\'s fields', async () => {
      const res = await api.post('createCertificate', { CNAME: 'resid.example.test', VALIDITY: 100, VALIDITY_TYPE: 'days' });
      expect(res.body.details).toEqual({ commonName: 'resid.example.test', Certificate_ID: expect.any(Number), serialNumber: expect.any(String), SSL_RESOURCEID: res.body.details.Certificate_ID });
      const bad = await api.post('createCertificate', { CNAME: 'unit.example.test', VALIDITY: 10, VALIDITY_TYPE: '88' });
      expect(bad.body.result).toEqual({ status: 'Failed', message: 'VALIDITY_TYPE must be one of: days, hours, minutes' });
    });

    it('withPrivateKey lists only certificates whose key is held; SHA256 selects SHA256withRSA', async () => {
      const leaf = await createSelfSignedLeaf('keyless.example.test', new Date(Date.now() - 60_000));
      expect((await api.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: leaf.certPem, name: 'keyless.pem' } })).body.result.Status).toBe('Success');
      const all = (await api.get('getAllSSLCertificates')).body.details as Record<string, unknown>[];
      expect(all.map((e) => e['Common Name'])).toContain('keyless.example.test');
      const withKey = (await api.get('getAllSSLCertificates', { withPrivateKey: 'true' })).body.details as Record<string, unknown>[];
      expect(withKey.map((e) => e['Common Name'])).not.toContain('keyless.example.test');
      expect(withKey.map((e) => e['Common Name'])).toContain('resid.example.test');
      const sha = (await api.get('getAllSSLCertificates', { withSignatureAlgorithm: 'SHA256' })).body.details as Record<string, unknown>[];
      expect(sha.find((e) => e['Common Name'] === 'resid.example.test')).toMatchObject({ SignatureAlgorithm: 'SHA256withRSA' });
    });

    it('sslCertSingleDiscovery takes TIMEOUT "300" (capped at 60 s per connection, said in the message) and a JSON number PORT', async () => {
      const leaf = await createSelfSignedLeaf('found.example.test', new Date(Date.now() - 60_000));
      const peer = await startNodeTlsServer({ keyPem: leaf.keyPem, chainPem: [leaf.certPem], host: '127.0.0.21' });
      try {
        const res = await api.post('sslCertSingleDiscovery', { HOST: peer.host, PORT: peer.port, TIMEOUT: '300' });
        expect(res.body.result.status).toBe('Success');
        expect(res.body.result.message).toMatch(/\(TIMEOUT 300 s was capped at 60 s per connection\)$/);
        expect(res.body.details[peer.host][0]).toBe('SUCCESS');
        // sslCertFileBasedDiscovery with PORT as the JSON number KMP's sample sends.
        const fromFile = await api.upload('sslCertFileBasedDiscovery', { PORT: peer.port, TIMEOUT: 5 }, { File: { body: `${peer.host}\n`, name: 'hosts.txt' } });
        expect(fromFile.body.result.status).toBe('Success');
        expect(fromFile.body.details).toEqual({ [peer.host]: ['SUCCESS', expect.stringContaining('CN=found.example.test')] });

        // Deleted with exclude_certificate, it stays out of later discoveries.
        const deleted = await api.del('deleteCertificate', { common_name: 'found.example.test', exclude_certificate: 'true', reason: 'lab host, not ours' });
        expect(deleted.body.result).toEqual({
          status: 'Success',
          message: 'Certificate found.example.test deleted successfully. It is excluded from discovery: a later discovery will not add it again.',
        });
        const again = await api.post('sslCertSingleDiscovery', { HOST: peer.host, PORT: peer.port, TIMEOUT: 5 });
        expect(again.body.result.message).toContain('1 passed over as excluded (deleted with exclude_certificate)');
        expect(await s.dataSource.query(`SELECT 1 FROM certificates WHERE common_name = 'found.example.test'`)).toEqual([]);
        const [audit] = await s.dataSource.query(`SELECT reason, description FROM audit WHERE operation = 'Certificate Deleted' AND target = 'found.example.test'`);
        expect(audit).toEqual({ reason: 'lab host, not ours', description: expect.stringMatching(/; excluded from discovery$/) });
      } finally {
        await peer.stop();
      }
    });

    it('createsshkey takes the old help\'s SSH2_RSA and SSH2_DSA spellings', async () => {
      for (const [keyName, keyType, stored] of [['kmp-old-rsa', 'SSH2_RSA', 'ssh-rsa'], ['kmp-old-dsa', 'SSH2_DSA', 'ssh-dss']]) {
        const res = await api.post('createsshkey', { keyName, keyType, length: keyType === 'SSH2_DSA' ? '1024' : '2048' });
        expect(res.body.result.status).toBe('Success');
        const [row] = await s.dataSource.query(`SELECT key_type FROM ssh_keys WHERE name = $1`, [keyName]);
        expect(row.key_type).toBe(stored);
      }
    });

    it('getPGPKey takes the key pair\'s full OpenPGP user id, name and mail both matching', async () => {
      const owner = await createUserWithToken(s, 'kmp-pgp-owner');
      await s.dataSource.query(`UPDATE users SET email = 'owner@example.test' WHERE id = $1`, [owner.id]);
      const res = await api.download('getPGPKey', { User: 'kmp-pgp-owner (work key) <owner@example.test>', keyExportType: 'public' });
      const key = await openpgp.readKey({ armoredKey: res.body.toString() });
      expect(key.getUserIDs()).toEqual(['kmp-pgp-owner <owner@example.test>']);
      const wrong = await api.download('getPGPKey', { User: 'kmp-pgp-owner <someone@example.test>', keyExportType: 'public' });
      expect(JSON.parse(wrong.body.toString()).result.status).toBe('Failed');
    });
  });
});
