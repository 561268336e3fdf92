import { readFileSync } from 'node:fs';
import { createCsr, parseCsr } from './csr';
import { CertificateError } from './errors';
import { pemBlocks, toPem } from './pem';
import { openssl, opensslAll, TempDir } from './spec-tools';

describe('CSR', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());

  it.each([
    ['RSA', 2048, 'SHA256withRSA', 'sha256WithRSAEncryption'],
    ['RSA', 3072, 'SHA512withRSA', 'sha512WithRSAEncryption'],
    ['EC', 256, 'SHA256withECDSA', 'ecdsa-with-SHA256'],
    ['EC', 521, 'SHA512withECDSA', 'ecdsa-with-SHA512'],
  ])('creates a %s-%i CSR signed with %s that openssl verifies', async (alg, len, sigalg, opensslName) => {
    const csr = await createCsr({
      subject: { commonName: 'csr.example.com', org: 'Acme', orgUnit: 'Ops', locality: 'Berlin', state: 'BE', country: 'de' },
      altNames: 'www.csr.example.com, 192.0.2.7, 2001:db8::7',
      keyAlgorithm: alg,
      keyLength: len,
      signatureAlgorithm: sigalg,
    });
    const file = tmp.file('r.csr', csr.csrPem);
    const out = opensslAll('req', '-in', file, '-verify', '-noout', '-text');
    expect(out).toMatch(/self-signature verify OK|verify OK/);
    expect(out).toContain('Subject: C = DE, ST = BE, L = Berlin, O = Acme, OU = Ops, CN = csr.example.com');
    expect(out).toContain('DNS:csr.example.com, DNS:www.csr.example.com, IP Address:192.0.2.7, IP Address:2001:DB8:0:0:0:0:0:7');
    expect(out).toContain(`Signature Algorithm: ${opensslName}`);
    const parsed = await parseCsr(csr.csrPem);
    expect(parsed.details).toMatchObject({
      commonName: 'csr.example.com',
      sans: ['csr.example.com', 'www.csr.example.com', '192.0.2.7', '2001:db8::7'],
      keyAlgorithm: alg,
      keyLength: len,
      signatureAlgorithm: sigalg,
    });
    expect(parsed.details.subject.dn).toBe('CN=csr.example.com, OU=Ops, O=Acme, L=Berlin, ST=BE, C=DE');
  });

  it('refuses a tampered CSR', async () => {
    const csr = await createCsr({ subject: { commonName: 'good.example.com' }, keyAlgorithm: 'EC' });
    const der = pemBlocks(csr.csrPem)[0].der;
    const at = der.indexOf(Buffer.from('good.example.com'));
    der.write('evil', at, 'latin1');
    const tampered = toPem(der, 'CERTIFICATE REQUEST');
    // openssl 3.0 reports the failure but still exits 0.
    expect(opensslAll('req', '-in', tmp.file('bad.csr', tampered), '-verify', '-noout')).toMatch(/verify failure/);
    await expect(parseCsr(tampered)).rejects.toMatchObject({ code: 'INVALID_SIGNATURE' });
    await expect(parseCsr('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----')).rejects.toThrow(CertificateError);
  });

  it('parses a CSR made by openssl, in DER too', async () => {
    const pemFile = tmp.file('o.csr');
    openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384', '-nodes', '-keyout', tmp.file('o.key'), '-out', pemFile,
      '-subj', '/C=GB/O=Example Ltd/OU=Web/CN=shop.example.co.uk', '-addext', 'subjectAltName=DNS:shop.example.co.uk,IP:10.9.8.7');
    const derFile = tmp.file('o.der');
    openssl('req', '-in', pemFile, '-outform', 'DER', '-out', derFile);
    for (const input of [readFileSync(pemFile, 'utf8'), readFileSync(derFile)]) {
      const { details } = await parseCsr(input);
      expect(details).toMatchObject({
        commonName: 'shop.example.co.uk',
        subject: { org: 'Example Ltd', orgunit: 'Web' },
        sans: ['shop.example.co.uk', '10.9.8.7'],
        keyAlgorithm: 'EC',
        keyLength: 384,
        signatureAlgorithm: 'SHA256withECDSA',
      });
    }
  });

  it('signs with a given existing key', async () => {
    const first = await createCsr({ subject: { commonName: 'a' }, keyAlgorithm: 'EC' });
    const second = await createCsr({ subject: { commonName: 'b' }, privateKeyPem: first.privateKeyPem });
    expect((await parseCsr(second.csrPem)).spkiDer).toEqual((await parseCsr(first.csrPem)).spkiDer);
  });

  it.each([
    [{ keyAlgorithm: 'RSA', signatureAlgorithm: 'SHA256withECDSA' }, /needs an EC key, but the key is RSA/],
    [{ keyAlgorithm: 'EC', keyLength: 2048 }, /EC key length 2048 is not supported/],
    [{ keyAlgorithm: 'RSA', keyLength: 1500 }, /RSA key length 1500 is not supported/],
    [{ keyAlgorithm: 'DSA' }, /use RSA or EC/],
    [{ signatureAlgorithm: 'MD5withRSA' }, /not supported/],
  ])('refuses bad algorithm combinations %o', async (options, message) => {
    await expect(createCsr({ subject: { commonName: 'x' }, ...options })).rejects.toThrow(message);
  });
});
