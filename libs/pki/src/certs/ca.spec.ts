import { X509Certificate } from 'node:crypto';
import { CertificateAuthority, createIntermediateCa, createRootCa, signCsr } from './ca';
import { createCsr } from './csr';
import { CertificateError } from './errors';
import { certificateDetails } from './parse';
import { openssl, TempDir } from './spec-tools';

describe('certificate authorities', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());

  let root: Awaited<ReturnType<typeof createRootCa>>;
  let issuing: Awaited<ReturnType<typeof createIntermediateCa>>;
  let issuingCa: CertificateAuthority;

  beforeAll(async () => {
    root = await createRootCa({ subject: { commonName: 'Test Root CA', org: 'Acme', country: 'US' }, keyAlgorithm: 'RSA', keyLength: 2048 });
    const rootCa = await CertificateAuthority.load(root);
    issuing = await createIntermediateCa(rootCa, {
      subject: { commonName: 'Test Issuing CA', org: 'Acme' },
      keyAlgorithm: 'EC',
      keyLength: 384,
      crlDistributionPointUrl: 'http://pki.example.com/root.crl',
    });
    issuingCa = await CertificateAuthority.load(issuing);
  });

  it('creates a root CA with CA:true and keyCertSign, cRLSign', () => {
    const text = openssl('x509', '-in', tmp.file('root.pem', root.certPem), '-text', '-noout');
    expect(text).toMatch(/CA:TRUE/);
    expect(text).toMatch(/Certificate Sign, CRL Sign/);
    expect(text).toMatch(/Subject Key Identifier/);
    const details = certificateDetails(root.certPem);
    expect(details).toMatchObject({ isCA: true, selfSigned: true, keyAlgorithm: 'RSA', keyLength: 2048, signatureAlgorithm: 'SHA256withRSA' });
  });

  it('issues an EC intermediate that chains to the root', () => {
    const details = certificateDetails(issuing.certPem);
    expect(details).toMatchObject({ isCA: true, selfSigned: false, keyAlgorithm: 'EC', keyLength: 384 });
    expect(details.issuer.cname).toBe('Test Root CA');
    expect(issuing.chainPems).toEqual([root.certPem]);
    const out = openssl('verify', '-CAfile', tmp.file('root.pem', root.certPem), tmp.file('int.pem', issuing.certPem));
    expect(out).toMatch(/OK/);
  });

  it('signs a WebServer leaf from a CSR that openssl verifies through the chain', async () => {
    const csr = await createCsr({ subject: { commonName: 'www.example.com' }, altNames: 'api.example.com,10.1.2.3,::1' });
    const issued = await issuingCa.signCsr(csr.csrPem, {
      validityDays: 30,
      template: 'Web Server',
      crlDistributionPointUrl: 'http://pki.example.com/issuing.crl',
    });
    expect(issued.chainPems).toEqual([issuing.certPem, root.certPem]);
    const leaf = tmp.file('leaf.pem', issued.certPem);
    expect(
      openssl('verify', '-CAfile', tmp.file('root.pem', root.certPem), '-untrusted', tmp.file('int.pem', issuing.certPem), leaf),
    ).toMatch(/leaf.pem: OK/);
    const text = openssl('x509', '-in', leaf, '-text', '-noout');
    expect(text).toMatch(/DNS:www.example.com, DNS:api.example.com, IP Address:10.1.2.3, IP Address:0:0:0:0:0:0:0:1/);
    expect(text).toMatch(/Digital Signature, Key Encipherment/);
    expect(text).toMatch(/TLS Web Server Authentication/);
    expect(text).toMatch(/URI:http:\/\/pki.example.com\/issuing.crl/);
    expect(text).toMatch(/CA:FALSE/);
    expect(text).toMatch(/Authority Key Identifier/);
    expect(text).toMatch(/Signature Algorithm: ecdsa-with-SHA384/);
    const days = (issued.notAfter.getTime() - issued.notBefore.getTime()) / 86_400_000;
    expect(days).toBe(30);
  });

  it.each([
    ['ClientAuthentication', /TLS Web Client Authentication/, /Digital Signature, Key Encipherment/],
    ['client auth', /TLS Web Client Authentication/, /Digital Signature/],
    ['codesigning', /Code Signing/, /Digital Signature\n/],
  ])('applies the %s template', async (template, eku, usage) => {
    const csr = await createCsr({ subject: { commonName: 'someone' } });
    const issued = await issuingCa.signCsr(csr.csrPem, { template });
    const text = openssl('x509', '-in', tmp.file('t.pem', issued.certPem), '-text', '-noout');
    expect(text).toMatch(eku);
    expect(text).toMatch(usage);
  });

  it('uses keyAgreement instead of keyEncipherment for EC leaf keys', async () => {
    const csr = await createCsr({ subject: { commonName: 'ec.example.com' }, keyAlgorithm: 'EC' });
    const issued = await issuingCa.signCsr(csr.csrPem, { template: 'webserver' });
    const text = openssl('x509', '-in', tmp.file('ec.pem', issued.certPem), '-text', '-noout');
    expect(text).toMatch(/Digital Signature, Key Agreement/);
  });

  it('refuses an unknown template and names the known ones', async () => {
    const csr = await createCsr({ subject: { commonName: 'x.example.com' } });
    await expect(issuingCa.signCsr(csr.csrPem, { template: 'EmailProtection' })).rejects.toThrow(
      /WebServer, ClientAuthentication, CodeSigning/,
    );
  });

  it('signs as an intermediate (isIntermediate) and a leaf under it verifies', async () => {
    const rootCa = await CertificateAuthority.load(root);
    const subCsr = await createCsr({ subject: { commonName: 'Sub CA' }, keyAlgorithm: 'RSA', keyLength: 2048 });
    const sub = await rootCa.signCsr(subCsr.csrPem, { isIntermediate: true, validityDays: 365 });
    const subText = openssl('x509', '-in', tmp.file('sub.pem', sub.certPem), '-text', '-noout');
    expect(subText).toMatch(/CA:TRUE/);
    expect(subText).toMatch(/Certificate Sign, CRL Sign/);
    const leaf = await signCsr(
      { certPem: sub.certPem, privateKeyPem: subCsr.privateKeyPem, chainPems: [root.certPem] },
      (await createCsr({ subject: { commonName: 'leaf.example.com' } })).csrPem,
      { validityDays: 10 },
    );
    expect(
      openssl('verify', '-CAfile', tmp.file('root.pem', root.certPem), '-untrusted', tmp.file('sub.pem', sub.certPem), tmp.file('l.pem', leaf.certPem)),
    ).toMatch(/OK/);
    expect(leaf.chainPems).toEqual([sub.certPem, root.certPem]);
  });

  it('signs CSRs made by openssl', async () => {
    const key = tmp.file('o.key');
    const csrPath = tmp.file('o.csr');
    openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csrPath, '-subj', '/C=DE/O=Org/CN=openssl.example.com',
      '-addext', 'subjectAltName=DNS:openssl.example.com,IP:192.168.0.1');
    const { readFileSync } = await import('node:fs');
    const issued = await issuingCa.signCsr(readFileSync(csrPath));
    const details = certificateDetails(issued.certPem);
    expect(details.subject).toMatchObject({ cname: 'openssl.example.com', org: 'Org' });
    expect(details.sans).toEqual(['openssl.example.com', '192.168.0.1']);
  });

  it('gives every certificate a unique positive serial of at least 64 bits', async () => {
    const csr = await createCsr({ subject: { commonName: 'serial.example.com' }, keyAlgorithm: 'EC' });
    const serials = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const issued = await issuingCa.signCsr(csr.csrPem, { validityDays: 1 });
      const serial = new X509Certificate(issued.certPem).serialNumber;
      expect(serial).toBe(issued.serialNumber);
      expect(BigInt(`0x${serial}`) >= 2n ** 64n).toBe(true);
      serials.add(serial);
    }
    expect(serials.size).toBe(200);
  });

  it('cuts a leaf to the CA lifetime', async () => {
    const csr = await createCsr({ subject: { commonName: 'long.example.com' }, keyAlgorithm: 'EC' });
    const issued = await issuingCa.signCsr(csr.csrPem, { validityDays: 10_000 });
    expect(issued.notAfter.getTime()).toBe(new Date(new X509Certificate(issuing.certPem).validTo).getTime());
  });

  it('refuses to load a non-CA certificate or a mismatched key', async () => {
    const csr = await createCsr({ subject: { commonName: 'leaf.example.com' } });
    const leaf = await issuingCa.signCsr(csr.csrPem);
    await expect(CertificateAuthority.load({ certPem: leaf.certPem, privateKeyPem: csr.privateKeyPem })).rejects.toMatchObject({ code: 'NOT_A_CA' });
    await expect(CertificateAuthority.load({ certPem: root.certPem, privateKeyPem: issuing.privateKeyPem })).rejects.toThrow(CertificateError);
  });

  it('refuses a signature algorithm that does not fit the CA key', async () => {
    const csr = await createCsr({ subject: { commonName: 'x.example.com' } });
    await expect(issuingCa.signCsr(csr.csrPem, { signatureAlgorithm: 'SHA256withRSA' })).rejects.toThrow(/needs an RSA key, but the key is EC/);
  });
});
