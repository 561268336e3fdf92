import { readFileSync } from 'node:fs';
import { CertificateAuthority, createRootCa } from './ca';
import { createCsr } from './csr';
import { publicKeyMatches, loadPrivateKey } from './keys';
import { certificateDetails } from './parse';
import { readPkcs12, writePkcs12 } from './pkcs12';
import { openssl, opensslAll, TempDir } from './spec-tools';
import { createPublicKey } from 'node:crypto';

describe('PKCS#12', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());

  async function issued(keyAlgorithm: 'RSA' | 'EC') {
    const root = await createRootCa({ subject: { commonName: `P12 ${keyAlgorithm} Root` }, keyAlgorithm });
    const ca = await CertificateAuthority.load(root);
    const csr = await createCsr({ subject: { commonName: `p12-${keyAlgorithm}.example.com` }, keyAlgorithm });
    const leaf = await ca.signCsr(csr.csrPem);
    return { root, leaf, key: csr.privateKeyPem };
  }

  it.each(['RSA', 'EC'] as const)('writes a %s keystore that openssl reads with the password', async (alg) => {
    const { root, leaf, key } = await issued(alg);
    const p12 = writePkcs12({ privateKeyPem: key, certPems: [leaf.certPem, root.certPem], password: 's3cret', alias: 'web' });
    const file = tmp.file(`${alg}.p12`, p12);
    const out = openssl('pkcs12', '-in', file, '-passin', 'pass:s3cret', '-nodes');
    expect(out).toContain('-----BEGIN PRIVATE KEY-----');
    expect(out.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(out).toContain(`subject=CN = p12-${alg}.example.com`);
    expect(out).toContain('friendlyName: web');
    const info = opensslAll('pkcs12', '-info', '-in', file, '-passin', 'pass:s3cret', '-nodes');
    expect(info).toMatch(/MAC: sha256/);
    expect(info).toMatch(/Shrouded Keybag: PBES2, PBKDF2, AES-256-CBC/);
    const keyFromOpenssl = out.slice(out.indexOf('-----BEGIN PRIVATE KEY-----'));
    expect(publicKeyMatches(loadPrivateKey(keyFromOpenssl), createPublicKey(loadPrivateKey(key)))).toBe(true);
    expect(() => openssl('pkcs12', '-in', file, '-passin', 'pass:wrong', '-nodes')).toThrow();
  });

  it.each(['RSA', 'EC'] as const)('reads back its own %s keystore', async (alg) => {
    const { root, leaf, key } = await issued(alg);
    const p12 = writePkcs12({ privateKeyPem: key, certPems: [leaf.certPem, root.certPem], password: 'pw', alias: 'a' });
    const read = readPkcs12(p12, 'pw');
    expect(read.certPems).toEqual([leaf.certPem, root.certPem]);
    expect(read.privateKeyPem).toBe(key);
    expect(read.alias).toBe('a');
  });

  it.each([
    ['rsa', ['-newkey', 'rsa:2048']],
    ['ec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']],
  ])('imports a %s PKCS#12 made by openssl', (name, keyArgs) => {
    const key = tmp.file(`${name}.key`);
    const cert = tmp.file(`${name}.crt`);
    openssl('req', '-x509', ...keyArgs, '-nodes', '-keyout', key, '-out', cert, '-days', '5', '-subj', `/CN=openssl-${name}`);
    const p12 = tmp.file(`${name}-openssl.p12`);
    openssl('pkcs12', '-export', '-inkey', key, '-in', cert, '-out', p12, '-passout', 'pass:abc', '-name', 'imported');
    const read = readPkcs12(readFileSync(p12), 'abc');
    expect(read.alias).toBe('imported');
    expect(certificateDetails(read.certPems[0]).subject.cname).toBe(`openssl-${name}`);
    expect(publicKeyMatches(loadPrivateKey(read.privateKeyPem!), createPublicKey(loadPrivateKey(readFileSync(key, 'utf8'))))).toBe(true);
  });

  it('refuses a wrong password with a clear error', async () => {
    const { leaf, key } = await issued('EC');
    const p12 = writePkcs12({ privateKeyPem: key, certPems: [leaf.certPem], password: 'right' });
    expect(() => readPkcs12(p12, 'wrong')).toThrow(expect.objectContaining({ code: 'WRONG_PASSWORD', message: 'The PKCS#12 password is wrong.' }));
  });
});
