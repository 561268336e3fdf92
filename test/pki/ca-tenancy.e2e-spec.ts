import { readFileSync } from 'node:fs';
import request from 'supertest';
import { join } from 'node:path';
import { binary, client, Tools } from './cert-e2e-helpers';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';

const FORGED_CN = 'Shared Name CA';
const FORGED_SERIAL = '1234ABCD';

/**
 * Issue 11, cases 2 and 6: a CA belongs to one organisation (or is one of the built-in,
 * server-wide ones); another organisation cannot sign with it whatever it names or forges,
 * and a subordinate CA below a built-in CA needs a super administrator.
 */
describe('certificate authorities per organisation (issue 11 cases 2 and 6)', () => {
  let s: TestServices;
  const tools = new Tools();
  const read = (name: string) => readFileSync(join(tools.dir, name));
  let orgB: { token: string; orgId: number };
  let keyManagerA: string;
  const a = client(() => s.pkiUrl, () => keyManagerA);
  const b = client(() => s.pkiUrl, () => orgB.token);

  beforeAll(async () => {
    s = await startTestServices();
    orgB = await createOrgWithAdmin(s, 'Org B');
    keyManagerA = (await createUserWithToken(s, 'keys-a', 'Password Administrator')).token;
    // Two CA certificates with the same subject and serial but their own keys: B's genuine
    // one, and A's copy of its name and serial.
    for (const who of ['b', 'a']) {
      tools.openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${who}-ca.key`,
        '-subj', `/CN=${FORGED_CN}`, '-set_serial', `0x${FORGED_SERIAL}`, '-days', '60',
        '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', `${who}-ca.pem`);
      tools.openssl('pkcs12', '-export', '-in', `${who}-ca.pem`, '-inkey', `${who}-ca.key`, '-passout', 'pass:Ks-Pass-1', '-out', `${who}-ca.p12`);
    }
  });
  afterAll(async () => {
    await s?.close();
    tools.remove();
  });

  const importCa = async (api: typeof a, who: string) => {
    const res = await api.upload('addCertificate', { fileType: 'KEYSTORE', PASSWORD: 'Ks-Pass-1' }, { File: { body: read(`${who}-ca.p12`), name: `${who}-ca.p12` } });
    expect(res.body.result.Status).toBe('Success');
  };
  const csr = async (api: typeof a, cn: string): Promise<number> => {
    const res = await api.post('createCSR', { CNAME: cn, PASSWORD: 'Csr-Pass-1' });
    expect(res.body.result.status).toBe('Success');
    return res.body.details.CSR_ID;
  };
  const verifies = (caFile: string, pem: string, name: string) => {
    tools.file(name, pem);
    return tools.opensslVerdict('verify', '-CAfile', caFile, name).includes(`${name}: OK`);
  };

  it('B adopts its imported CA through signWithRoot', async () => {
    await importCa(b, 'b');
    const res = await b.post('signCSR', { CSR_ID: await csr(b, 'b-leaf.example.test'), signType: 'signWithRoot', rootCertificateCommonName: FORGED_CN, rootCertificateSerialNumber: FORGED_SERIAL, Validity: 10 });
    expect(res.body.result).toEqual({ status: 'Success', message: expect.any(String) });
    expect(verifies('b-ca.pem', res.body.details[0].certificate, 'b-leaf.pem')).toBe(true);
    const rows = await s.dataSource.query('SELECT org_id FROM certificate_authorities WHERE common_name = $1', [FORGED_CN]);
    expect(rows).toEqual([{ org_id: orgB.orgId }]);
  });

  it('A cannot name B’s CA: by its name, its common name and serial, or as a parent', async () => {
    const [bCa] = await s.dataSource.query('SELECT name FROM certificate_authorities WHERE org_id = $1', [orgB.orgId]);
    const id = await csr(a, 'a-probe.example.test');
    const byName = await a.post('signCSR', { CSR_ID: id, caName: bCa.name });
    expect(byName.body.result.status).toBe('Failed');
    expect(byName.body.result.message).toMatch(/^Certificate authority ".*" is not known; known CAs: root-ca, issuing-ca$/);
    const byCn = await a.post('signCSR', { CSR_ID: id, signType: 'signWithRoot', rootCertificateCommonName: FORGED_CN, rootCertificateSerialNumber: FORGED_SERIAL, isIntermediate: 'true' });
    expect(byCn.body.result).toEqual({ status: 'Failed', message: `No CA certificate "${FORGED_CN}" with serial ${FORGED_SERIAL} was found` });
    const parent = await a.post('createCA', { caName: 'A Under B', parentCaName: bCa.name });
    expect(parent.body.result.status).toBe('Failed');
    expect(parent.body.result.message).toMatch(/is not known/);
  });

  it.each([['a leaf', 'false'], ['an intermediate', 'true']])(
    'A’s forged copy (same name and serial) signs %s with A’s own key, never B’s',
    async (_, isIntermediate) => {
      if (!(await s.dataSource.query(`SELECT 1 FROM certificates WHERE org_id = 1 AND common_name = $1`, [FORGED_CN])).length) await importCa(a, 'a');
      const res = await a.post('signCSR', {
        CSR_ID: await csr(a, `a-${isIntermediate}.example.test`),
        signType: 'signWithRoot',
        rootCertificateCommonName: FORGED_CN,
        rootCertificateSerialNumber: FORGED_SERIAL,
        Validity: 10,
        isIntermediate,
      });
      expect(res.body.result.status).toBe('Success');
      const pem = res.body.details[0].certificate;
      expect(verifies('a-ca.pem', pem, `a-${isIntermediate}.pem`)).toBe(true);
      expect(verifies('b-ca.pem', pem, `a-${isIntermediate}-b.pem`)).toBe(false);
      const cas = await s.dataSource.query(
        `SELECT a.org_id FROM certificates c JOIN certificate_authorities a ON a.id = c.ca_id WHERE c.serial_number = $1`,
        [res.body.details[0].serialNumber],
      );
      expect(cas).toEqual([{ org_id: 1 }]);
    },
  );

  it('each organisation has its own adopted CA of that name; names are unique per organisation only', async () => {
    const rows = await s.dataSource.query('SELECT org_id, name FROM certificate_authorities WHERE common_name = $1 ORDER BY org_id', [FORGED_CN]);
    expect(rows).toEqual([
      { org_id: 1, name: `${FORGED_CN} ${FORGED_SERIAL}` },
      { org_id: orgB.orgId, name: `${FORGED_CN} ${FORGED_SERIAL}` },
    ]);
    expect((await b.post('createCA', { caName: 'Team CA', caType: 'root' })).body.result.status).toBe('Success');
    expect((await a.post('createCA', { caName: 'Team CA', caType: 'root' })).body.result.status).toBe('Success');
    const again = await a.post('createCA', { caName: 'team ca', caType: 'root' });
    expect(again.body.result).toEqual({ status: 'Failed', message: 'A certificate authority named team ca already exists' });
    const builtIn = await a.post('createCA', { caName: 'Issuing-CA', caType: 'root' });
    expect(builtIn.body.result).toEqual({ status: 'Failed', message: 'A certificate authority named Issuing-CA already exists' });
    // A's leaf from its own "Team CA" verifies under A's CA, not B's.
    const signed = await a.post('signCSR', { CSR_ID: await csr(a, 'team-a.example.test'), caName: 'Team CA' });
    const [bTeam] = await s.dataSource.query(`SELECT certificate_pem FROM certificate_authorities WHERE org_id = $1 AND name = 'Team CA'`, [orgB.orgId]);
    tools.file('b-team.pem', bTeam.certificate_pem);
    expect(verifies('b-team.pem', signed.body.details[0].certificate, 'team-a.pem')).toBe(false);
  });

  it('publishes CRLs and CA certificates without mixing organisations: by id, by name only when unambiguous', async () => {
    const teams: { id: number; certificate_pem: string }[] = await s.dataSource.query(`SELECT id, certificate_pem FROM certificate_authorities WHERE name = 'Team CA' ORDER BY id`);
    expect(teams).toHaveLength(2);
    for (const team of teams) {
      const res = await request(s.pkiUrl).get(`/ca/${team.id}.crt`);
      expect(res.text.trim()).toBe(team.certificate_pem.trim());
    }
    const ambiguous = await request(s.pkiUrl).get('/crl/Team%20CA.crl');
    expect(ambiguous.body.result).toEqual({ status: 'Failed', message: 'Several certificate authorities are named Team CA; ask for /crl/<id>.crl or /ca/<id>.crt' });
    // The service CA's certificate is public, for the trust stores of the services' clients.
    expect((await request(s.pkiUrl).get('/ca/service-ca.crt')).text).toContain('BEGIN CERTIFICATE');
  });

  it('an organisation CA’s OCSP responder is named by id, answers for that organisation’s certificates only', async () => {
    const [team] = await s.dataSource.query(`SELECT id, certificate_pem FROM certificate_authorities WHERE org_id = 1 AND name = 'Team CA'`);
    const signed = await a.post('signCSR', { CSR_ID: await csr(a, 'ocsp-team.example.test'), caName: 'Team CA' });
    tools.file('ocsp-team.pem', signed.body.details[0].certificate);
    tools.file('team-a-ca.pem', team.certificate_pem);
    const text = tools.openssl('x509', '-in', 'ocsp-team.pem', '-noout', '-text');
    expect(text).toContain(`/ocsp/${team.id}`);
    expect(text).toContain(`/ca/${team.id}.crt`);
    expect(text).toContain(`/crl/${team.id}.crl`);
    tools.openssl('ocsp', '-issuer', 'team-a-ca.pem', '-cert', 'ocsp-team.pem', '-no_nonce', '-reqout', 'team.req');
    const ask = (ref: string) =>
      request(s.pkiUrl).post(`/ocsp/${ref}`).set('content-type', 'application/ocsp-request').send(read('team.req')).buffer(true).parse(binary);
    const answer = async (ref: string) => {
      tools.file('team.resp', (await ask(ref)).body);
      return tools.openssl('ocsp', '-respin', 'team.resp', '-resp_text', '-noverify');
    };
    expect(await answer(String(team.id))).toContain('Cert Status: good');
    // Two organisations hold the name "Team CA": it names neither.
    expect((await ask('Team%20CA')).body.toString('hex')).toBe('30030a0106');
    // A certificate row of another organisation with the same CA and serial does not count.
    await s.dataSource.query(`UPDATE certificates SET org_id = $1, revoked_at = now(), revoke_reason = 1 WHERE common_name = 'ocsp-team.example.test'`, [orgB.orgId]);
    expect(await answer(String(team.id))).toContain('Cert Status: unknown');
  });

  it('ACME EAB keys name only a CA the organisation may use, never the service CA or another organisation’s', async () => {
    const [bTeam] = await s.dataSource.query(`SELECT id FROM certificate_authorities WHERE org_id = $1 AND name = 'Team CA'`, [orgB.orgId]);
    const admin = client(() => s.pkiUrl, () => s.adminToken);
    const service = await admin.post('createAcmeEabKey', { caName: 'service-ca' });
    expect(service.body.result).toEqual({ status: 'Failed', message: 'Certificate authority "service-ca" is not known' });
    const own = await b.post('createAcmeEabKey', { caName: 'Team CA' });
    expect(own.body.result.status).toBe('Success');
    expect(own.body.details.directoryPath).toBe(`/acme/${bTeam.id}/directory`);
    const [key] = await s.dataSource.query('SELECT org_id, ca_id FROM acme_eab_keys WHERE key_id = $1', [own.body.details.keyId]);
    expect(key).toEqual({ org_id: orgB.orgId, ca_id: bTeam.id });
    expect((await request(s.pkiUrl).get(`/acme/${bTeam.id}/directory`)).status).toBe(200);
    expect((await request(s.pkiUrl).get('/acme/service-ca/directory')).status).toBe(404);
    expect((await request(s.pkiUrl).get('/acme/Team%20CA/directory')).status).toBe(404);
  });

  it('the names ACME may issue for with a built-in CA are set by the provider only: another organisation cannot widen them for all', async () => {
    const admin = client(() => s.pkiUrl, () => s.adminToken);
    const refused = await b.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*' });
    expect(refused.body.result).toEqual({
      status: 'Failed',
      message: 'Only a super administrator of the provider organisation may set the names ACME issues for with the built-in CA issuing-ca',
    });
    expect(await s.dataSource.query(`SELECT names FROM ca_allowed_names p JOIN certificate_authorities c ON c.id = p.ca_id WHERE c.name = 'issuing-ca' AND c.org_id IS NULL AND '*' = ANY(p.names)`)).toEqual([]);
    // Its own CA's names are B's to set; the built-in ones, the provider's.
    expect((await b.post('setAcmeAllowedDomains', { caName: 'Team CA', allowedDomains: '*.b.example.test' })).body.result.status).toBe('Success');
    expect((await admin.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*.example.test' })).body.result.status).toBe('Success');
  });

  describe('case 6: the built-in CAs', () => {
    it('the internal service CA is neither listed nor usable by any caller, super administrators included', async () => {
      const admin = client(() => s.pkiUrl, () => s.adminToken);
      const id = await csr(admin, 'vault.example.test');
      for (const caName of ['service-ca', 'Credential Vault Service CA']) {
        const res = await admin.post('signCSR', { CSR_ID: id, caName });
        const [head, known] = String(res.body.result.message).split('; known CAs: ');
        expect(head).toBe(`Certificate authority "${caName}" is not known`);
        expect(known.split(', ').slice(0, 2)).toEqual(['root-ca', 'issuing-ca']);
        expect(known).not.toMatch(/service/i);
        const parent = await admin.post('createCA', { caName: `Under ${caName.length}`, parentCaName: caName });
        expect(parent.body.result.message).toMatch(/is not known/);
      }
      const withRoot = await admin.post('signCSR', { CSR_ID: id, signType: 'signWithRoot', rootCertificateCommonName: 'Credential Vault Service CA', isIntermediate: 'true' });
      expect(withRoot.body.result).toEqual({ status: 'Failed', message: 'No CA certificate "Credential Vault Service CA" was found' });
      const taken = await admin.post('createCA', { caName: 'service-ca', caType: 'root' });
      expect(taken.body.result).toEqual({ status: 'Failed', message: 'A certificate authority named service-ca already exists' });
    });

    it('an intermediate CA below a built-in CA needs a super administrator', async () => {
      const [root] = await s.dataSource.query(`SELECT serial_number FROM certificate_authorities WHERE name = 'root-ca'`);
      const refused = 'Only a super administrator may issue an intermediate CA from the built-in CA root-ca';
      const signed = await a.post('signCSR', {
        CSR_ID: await csr(a, 'Rogue Sub CA'),
        signType: 'signWithRoot',
        rootCertificateCommonName: 'Credential Vault Root CA',
        rootCertificateSerialNumber: root.serial_number,
        isIntermediate: 'true',
      });
      expect(signed.body.result).toEqual({ status: 'Failed', message: refused });
      // Another organisation's super administrator neither: the built-in root is trusted by all.
      for (const api of [a, b]) {
        const made = await api.post('createCA', { caName: 'Rogue Intermediate' });
        expect(made.body.result).toEqual({ status: 'Failed', message: refused });
      }
      expect(await s.dataSource.query(`SELECT 1 FROM certificates WHERE common_name = 'Rogue Sub CA'`)).toEqual([]);
      expect(await s.dataSource.query(`SELECT 1 FROM certificate_authorities WHERE name = 'Rogue Intermediate'`)).toEqual([]);
      // Below its own CA, a key manager may; and the provider's super administrator below a built-in one.
      expect((await a.post('createCA', { caName: 'A Sub', parentCaName: 'Team CA' })).body.result.status).toBe('Success');
      const admin = client(() => s.pkiUrl, () => s.adminToken);
      expect((await admin.post('createCA', { caName: 'Admin Sub' })).body.result.status).toBe('Success');
    });
  });
});
