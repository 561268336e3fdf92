import { readFileSync } from 'node:fs';
import { CertificateAuthority, createRootCa } from './ca';
import { createCsr } from './csr';
import { exportCertificate } from './export';
import { readKeyStore } from './keystore';
import { readCertificatePems } from './parse';
import { readPkcs7 } from './pkcs7';
import { keytool, openssl, TempDir } from './spec-tools';

describe('exportCertificate', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());
  let input: { certPem: string; chainPems: string[]; privateKeyPem: string };

  beforeAll(async () => {
    const root = await createRootCa({ subject: { commonName: 'Export Root' }, keyAlgorithm: 'EC' });
    const csr = await createCsr({ subject: { commonName: 'Export.Example.com' }, keyAlgorithm: 'RSA' });
    const leaf = await (await CertificateAuthority.load(root)).signCsr(csr.csrPem);
    input = { certPem: leaf.certPem, chainPems: leaf.chainPems, privateKeyPem: csr.privateKeyPem };
  });

  it('PEM carries the certificate and chain; CRT the certificate alone', () => {
    const pem = exportCertificate('PEM', input);
    expect(pem).toMatchObject({ fileSuffix: '.pem', contentType: 'application/x-pem-file' });
    expect(readCertificatePems(pem.body)).toEqual([input.certPem, ...input.chainPems]);
    const crt = exportCertificate('crt', input);
    expect(crt.body.toString()).toBe(input.certPem);
    expect(crt.fileSuffix).toBe('.crt');
  });

  it.each(['CER', 'DER'])('%s is binary DER that openssl reads', (format) => {
    const out = exportCertificate(format, input);
    expect(out.body[0]).toBe(0x30);
    const text = openssl('x509', '-inform', 'DER', '-in', tmp.file(`c${out.fileSuffix}`, out.body), '-noout', '-subject');
    expect(text).toMatch(/CN = Export.Example.com/);
  });

  it('P7B is a DER PKCS#7 bundle that openssl prints', () => {
    const out = exportCertificate('P7B', input);
    expect(out).toMatchObject({ fileSuffix: '.p7b', contentType: 'application/x-pkcs7-certificates' });
    const text = openssl('pkcs7', '-inform', 'DER', '-in', tmp.file('c.p7b', out.body), '-print_certs');
    expect(text).toMatch(/subject=CN = Export.Example.com/);
    expect(text).toMatch(/subject=CN = Export Root/);
    expect(readPkcs7(out.body)).toHaveLength(2);
  });

  it('reads a P7B made by openssl (PEM and DER)', () => {
    const pem = tmp.file('in.pem', input.certPem + input.chainPems.join(''));
    const p7 = openssl('crl2pkcs7', '-nocrl', '-certfile', pem);
    expect(readCertificatePems(p7)).toEqual([input.certPem, ...input.chainPems]);
    openssl('crl2pkcs7', '-nocrl', '-certfile', pem, '-outform', 'DER', '-out', tmp.file('in.p7b'));
    expect(readCertificatePems(readFileSync(tmp.file('in.p7b')))).toHaveLength(2);
  });

  it('PKCS is a PKCS#12 keystore with key and chain', () => {
    const out = exportCertificate('PKCS', { ...input, password: 'pw' });
    expect(out.fileSuffix).toBe('.p12');
    const text = openssl('pkcs12', '-in', tmp.file('c.p12', out.body), '-passin', 'pass:pw', '-nodes');
    expect(text.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(text).toContain('friendlyName: export.example.com');
    expect(readKeyStore(out.body, 'pw')).toMatchObject({ privateKeyPem: input.privateKeyPem, certPems: [input.certPem, ...input.chainPems] });
  });

  it('JKS is a Java keystore keytool lists', () => {
    const out = exportCertificate('JKS', { ...input, password: 'changeit' });
    const text = keytool('-list', '-keystore', tmp.file('c.jks', out.body), '-storepass', 'changeit', '-storetype', 'JKS');
    expect(text).toMatch(/export.example.com, .*PrivateKeyEntry/);
    expect(readKeyStore(out.body, 'changeit')).toMatchObject({ privateKeyPem: input.privateKeyPem, alias: 'export.example.com' });
  });

  it('KEY is the PKCS#8 key, encrypted when a password is given', () => {
    expect(exportCertificate('KEY', input).body.toString()).toBe(input.privateKeyPem);
    const encrypted = exportCertificate('KEY', { ...input, password: 'kpw' }).body.toString();
    expect(encrypted).toContain('-----BEGIN ENCRYPTED PRIVATE KEY-----');
    const file = tmp.file('k.key', encrypted);
    expect(openssl('pkey', '-in', file, '-passin', 'pass:kpw')).toBe(input.privateKeyPem);
    expect(() => openssl('pkey', '-in', file, '-passin', 'pass:nope')).toThrow();
  });

  it.each(['KEY', 'PKCS', 'JKS'])('%s refuses clearly without a private key', (format) => {
    expect(() => exportCertificate(format, { certPem: input.certPem, password: 'pw' })).toThrow(
      expect.objectContaining({ code: 'PRIVATE_KEY_REQUIRED', message: expect.stringMatching(/needs the certificate's private key/) }),
    );
  });

  it('refuses an unknown format and a keystore without password', () => {
    expect(() => exportCertificate('ZIP', input)).toThrow(/use one of PEM, CRT, CER, DER, P7B, PKCS, JKS, KEY/);
    expect(() => exportCertificate('JKS', input)).toThrow(/needs a password/);
  });
});
