import { readFileSync } from 'node:fs';
import { startTestServices, TestServices } from '../support/app';
import { createOrgWithAdmin } from '../vault/users-orgs';
import { client, Tools } from './cert-e2e-helpers';

/*
 * Issue 35: the name lists of the server-wide CAs checked only CN and SANs; the rest of the
 * subject was copied as the CSR had it. A new organisation got a client-authentication
 * certificate chaining to root-ca for `O=Org A Bank, OU=Domain Admins, emailAddress=...,
 * UID=administrator`, with no CN and no SAN. Now no attribute but a common name it may have
 * reaches a certificate, unless its list holds that exact attribute.
 */
describe('a server-wide CA certifies only what an organisation may have, in every attribute', () => {
  let s: TestServices;
  const tools = new Tools();
  let orgB: { token: string; orgId: number };
  let orgC: { token: string; orgId: number };
  const admin = client(() => s.pkiUrl, () => s.adminToken);
  const b = client(() => s.pkiUrl, () => orgB.token);
  const c = client(() => s.pkiUrl, () => orgC.token);
  let n = 0;

  beforeAll(async () => {
    s = await startTestServices();
    orgB = await createOrgWithAdmin(s, 'Subjects Org B');
    orgC = await createOrgWithAdmin(s, 'Subjects Org C');
    const set = await admin.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: 'b.example.com, O=Org B Ltd', orgName: 'Subjects Org B' });
    expect(set.body.result.status).toBe('Success');
    expect((await admin.post('setAcmeAllowedDomains', { caName: 'root-ca', allowedDomains: 'b.example.com', orgName: 'Subjects Org B' })).body.result.status).toBe('Success');
  });
  afterAll(async () => {
    await s?.close();
    tools.remove();
  });

  /** A CSR with exactly this subject (openssl -subj syntax; `+` joins a multi-valued RDN), imported and signed. */
  const signSubject = async (api: typeof b, subject: string, signType: Record<string, unknown> = { caName: 'issuing-ca', templateName: 'ClientAuthentication' }) => {
    n += 1;
    tools.openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `k${n}.pem`, '-out', `r${n}.csr`, '-subj', subject, '-multivalue-rdn');
    const imported = await api.upload('importCSR', {}, { CSR: { body: readFileSync(tools.file(`r${n}.csr`)), name: `r${n}.csr` } });
    expect(imported.body.result.status).toBe('Success');
    return (await api.post('signCSR', { CSR_ID: imported.body.details.CSR_ID, ...signType })).body.result;
  };
  const issuedTo = async (orgId: number) => (await s.dataSource.query('SELECT count(*)::int AS n FROM certificates WHERE org_id = $1', [orgId]))[0].n;

  it('refuses O, OU, emailAddress and UID with no CN and no SAN, naming them: signCSR and signWithRoot', async () => {
    const subject = '/O=Org A Bank/OU=Domain Admins/emailAddress=ceo@a.example.com/UID=administrator';
    const issuing = await signSubject(c, subject);
    expect(issuing.status).toBe('Failed');
    expect(issuing.message).toMatch(/^This organisation may not have the subject attributes O=Org A Bank, OU=Domain Admins, E=ceo@a\.example\.com, UID=administrator in a certificate from the server-wide CA issuing-ca/);
    const root = await signSubject(c, subject, { signType: 'signWithRoot', caName: 'root-ca', Validity: 3650 });
    expect(root.status).toBe('Failed');
    expect(await issuedTo(orgC.orgId)).toBe(0);
  });

  it('refuses another organisation’s O beside an allowed common name, and in a multi-valued RDN', async () => {
    for (const subject of ['/CN=b.example.com/O=Org A Bank', '/CN=b.example.com+O=Org A Bank', '/CN=b.example.com/serialNumber=42']) {
      const result = await signSubject(b, subject);
      expect({ subject, status: result.status }).toEqual({ subject, status: 'Failed' });
    }
    expect(await issuedTo(orgB.orgId)).toBe(0);
  });

  it('refuses a subject that names nothing', async () => {
    const result = await signSubject(b, '/');
    expect(result).toEqual({ status: 'Failed', message: expect.stringMatching(/^The request names nothing/) });
  });

  it('signs an allowed common name, and an attribute its provider allowed exactly', async () => {
    expect((await signSubject(b, '/CN=b.example.com')).status).toBe('Success');
    expect((await signSubject(b, '/CN=b.example.com/O=Org B Ltd')).status).toBe('Success');
    expect((await signSubject(b, '/CN=b.example.com/O=Org B Ltd.')).status).toBe('Failed');
  });

  it('the provider keeps signing any subject', async () => {
    expect((await signSubject(admin, '/CN=anything.example/O=Provider/OU=Ops')).status).toBe('Success');
  });
});
