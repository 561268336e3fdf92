import { readFileSync } from 'node:fs';
import { CertificateAuthority, createIntermediateCa, createRootCa } from './ca';
import { createCsr } from './csr';
import { certificateBundleDetails, certificateDetails, orderChain, readCertificatePems } from './parse';
import { pemBlocks } from './pem';
import { createSelfSignedCertificate } from './self-signed';
import { openssl, TempDir } from './spec-tools';

describe('certificate parsing', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());

  it('reads a certificate made by openssl into a details record (PEM and DER)', () => {
    const pem = tmp.file('o.pem');
    openssl('req', '-x509', '-newkey', 'rsa:3072', '-sha384', '-nodes', '-keyout', tmp.file('o.key'), '-out', pem, '-days', '10',
      '-subj', '/C=US/O=Example, Inc./OU=Platform/CN=host.example.com', '-addext', 'subjectAltName=DNS:host.example.com,IP:203.0.113.5,IP:fe80::1');
    const der = tmp.file('o.der');
    openssl('x509', '-in', pem, '-outform', 'DER', '-out', der);
    const sha1 = openssl('x509', '-in', pem, '-noout', '-fingerprint', '-sha1').trim().split('=')[1];
    const sha256 = openssl('x509', '-in', pem, '-noout', '-fingerprint', '-sha256').trim().split('=')[1];
    const serial = openssl('x509', '-in', pem, '-noout', '-serial').trim().split('=')[1];
    for (const input of [readFileSync(pem, 'utf8'), readFileSync(der)]) {
      const d = certificateDetails(input);
      expect(d).toMatchObject({
        subject: { cname: 'host.example.com', org: 'Example, Inc.', orgunit: 'Platform', dn: 'CN=host.example.com, OU=Platform, O=Example\\, Inc., C=US' },
        issuer: { cname: 'host.example.com' },
        sans: ['host.example.com', '203.0.113.5', 'fe80::1'],
        serialNumber: serial,
        fingerprintSha1: sha1,
        fingerprintSha256: sha256,
        signatureAlgorithm: 'SHA384withRSA',
        keyAlgorithm: 'RSA',
        keyLength: 3072,
        selfSigned: true,
      });
      expect(d.notAfter.getTime() - d.notBefore.getTime()).toBe(10 * 86_400_000);
      expect(d.pem).toBe(readFileSync(pem, 'utf8'));
    }
  });

  it('reads EC certificates (curve size as key length)', () => {
    const pem = tmp.file('ec.pem');
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521', '-nodes', '-keyout', tmp.file('ec.key'), '-out', pem, '-subj', '/CN=ec');
    expect(certificateDetails(readFileSync(pem, 'utf8'))).toMatchObject({ keyAlgorithm: 'EC', keyLength: 521, signatureAlgorithm: 'SHA256withECDSA' });
  });

  it('orders a shuffled chain leaf first and reads bundles', async () => {
    const root = await createRootCa({ subject: { commonName: 'Order Root' }, keyAlgorithm: 'EC' });
    const int = await createIntermediateCa(await CertificateAuthority.load(root), { subject: { commonName: 'Order Int' }, keyAlgorithm: 'EC' });
    const leaf = await (await CertificateAuthority.load(int)).signCsr((await createCsr({ subject: { commonName: 'order.example.com' }, keyAlgorithm: 'EC' })).csrPem);
    const unrelated = (await createSelfSignedCertificate({ subject: { commonName: 'other' }, keyAlgorithm: 'EC' })).certPem;
    expect(orderChain([root.certPem, unrelated, leaf.certPem, int.certPem, root.certPem])).toEqual([leaf.certPem, int.certPem, root.certPem, unrelated]);
    const bundle = [int.certPem, root.certPem, leaf.certPem].join('');
    expect(readCertificatePems(bundle)).toHaveLength(3);
    const details = certificateBundleDetails(bundle);
    expect(details.map((d) => [d.subject.cname, d.isCA, d.selfSigned])).toEqual([
      ['order.example.com', false, false],
      ['Order Int', true, false],
      ['Order Root', true, true],
    ]);
  });

  it('refuses input without a certificate', () => {
    expect(() => certificateDetails('hello')).toThrow(/not a readable PKCS#7|could not be parsed/);
    expect(() => readCertificatePems('-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----')).toThrow(/No certificate found/);
    expect(pemBlocks('nothing')).toEqual([]);
  });
});

describe('self-signed certificates', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());

  it('creates one openssl accepts, with SANs, template usages and exact validity', async () => {
    const { validityPeriod } = await import('./subject');
    const created = await createSelfSignedCertificate({
      subject: { commonName: '10.20.30.40', org: 'Lab' },
      altNames: 'lab.example.com',
      keyAlgorithm: 'RSA',
      keyLength: 2048,
      signatureAlgorithm: 'SHA384withRSA',
      validity: validityPeriod(90, 'minutes'),
    });
    const file = tmp.file('s.pem', created.certPem);
    expect(openssl('verify', '-CAfile', file, file)).toMatch(/OK/);
    const text = openssl('x509', '-in', file, '-text', '-noout');
    expect(text).toContain('IP Address:10.20.30.40, DNS:lab.example.com');
    expect(text).toContain('TLS Web Server Authentication');
    expect(text).toContain('sha384WithRSAEncryption');
    const d = certificateDetails(created.certPem);
    expect(d.notAfter.getTime() - d.notBefore.getTime()).toBe(90 * 60_000);
    expect(d).toMatchObject({ selfSigned: true, isCA: false, serialNumber: created.serialNumber });
  });
});
