import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CertificateAuthority, createRootCa } from './ca';
import { createCsr } from './csr';
import { readJks, writeJks } from './jks';
import { loadPrivateKey, publicKeyMatches } from './keys';
import { certificateDetails } from './parse';
import { keytool, openssl, TempDir } from './spec-tools';

describe('JKS', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());

  async function issued(keyAlgorithm: 'RSA' | 'EC') {
    const root = await createRootCa({ subject: { commonName: `JKS ${keyAlgorithm} Root` }, keyAlgorithm });
    const csr = await createCsr({ subject: { commonName: `jks-${keyAlgorithm}.example.com` }, keyAlgorithm });
    const leaf = await (await CertificateAuthority.load(root)).signCsr(csr.csrPem);
    return { root, leaf, key: csr.privateKeyPem };
  }

  it.each(['RSA', 'EC'] as const)('writes a %s keystore that keytool lists', async (alg) => {
    const { root, leaf, key } = await issued(alg);
    const jks = writeJks(
      [
        { alias: 'Server', privateKeyPem: key, certPems: [leaf.certPem, root.certPem] },
        { alias: 'root', certPem: root.certPem },
      ],
      'changeit',
    );
    const file = tmp.file(`${alg}.jks`, jks);
    const out = keytool('-list', '-v', '-keystore', file, '-storepass', 'changeit', '-storetype', 'JKS');
    expect(out).toMatch(/Keystore type: JKS/i);
    expect(out).toMatch(/Your keystore contains 2 entries/);
    expect(out).toMatch(/Alias name: server\s+Creation date: .*\s+Entry type: PrivateKeyEntry\s+Certificate chain length: 2/);
    expect(out).toMatch(/Alias name: root\s+Creation date: .*\s+Entry type: trustedCertEntry/);
    expect(out).toContain(`CN=jks-${alg}.example.com`);
    expect(() => keytool('-list', '-keystore', file, '-storepass', 'wrongpass', '-storetype', 'JKS')).toThrow();
  });

  it('has a key keytool can recover (export to PKCS#12 and read with openssl)', async () => {
    const { root, leaf, key } = await issued('EC');
    const file = tmp.file('k.jks', writeJks([{ alias: 'k', privateKeyPem: key, certPems: [leaf.certPem, root.certPem] }], 'storepw'));
    const p12 = tmp.file('k.p12');
    keytool('-importkeystore', '-srckeystore', file, '-srcstoretype', 'JKS', '-srcstorepass', 'storepw',
      '-destkeystore', p12, '-deststoretype', 'PKCS12', '-deststorepass', 'destpw', '-noprompt');
    const out = openssl('pkcs12', '-in', p12, '-passin', 'pass:destpw', '-nodes');
    const keyPem = out.slice(out.indexOf('-----BEGIN PRIVATE KEY-----'));
    expect(publicKeyMatches(loadPrivateKey(keyPem), createPublicKey(loadPrivateKey(key)))).toBe(true);
  });

  it('reads back its own keystore', async () => {
    const { root, leaf, key } = await issued('RSA');
    const jks = writeJks([{ alias: 'a', privateKeyPem: key, certPems: [leaf.certPem, root.certPem] }], 'pw123456');
    const [entry] = readJks(jks, 'pw123456');
    expect(entry).toMatchObject({ alias: 'a', privateKeyPem: key, certPems: [leaf.certPem, root.certPem] });
  });

  it.each([
    ['RSA', ['-keyalg', 'RSA', '-keysize', '2048']],
    ['EC', ['-keyalg', 'EC', '-groupname', 'secp256r1']],
  ])('imports a %s JKS made by keytool -genkeypair', (alg, args) => {
    const file = tmp.file(`gen-${alg}.jks`);
    keytool('-genkeypair', '-alias', 'mykey', ...args, '-dname', `CN=keytool-${alg}, O=Java`, '-validity', '30',
      '-keystore', file, '-storetype', 'JKS', '-storepass', 'storepass', '-keypass', 'storepass');
    keytool('-exportcert', '-alias', 'mykey', '-keystore', file, '-storepass', 'storepass', '-rfc', '-file', tmp.file(`gen-${alg}.crt`));
    keytool('-importcert', '-alias', 'extra', '-file', tmp.file(`gen-${alg}.crt`), '-keystore', file, '-storepass', 'storepass', '-noprompt');
    const entries = readJks(readFileSync(file), 'storepass');
    const keyEntry = entries.find((e) => e.alias === 'mykey')!;
    expect(certificateDetails(keyEntry.certPems[0])).toMatchObject({ subject: { cname: `keytool-${alg}`, org: 'Java' }, keyAlgorithm: alg });
    expect(publicKeyMatches(loadPrivateKey(keyEntry.privateKeyPem!), createPublicKey(keyEntry.certPems[0]))).toBe(true);
    expect(entries.find((e) => e.alias === 'extra')?.privateKeyPem).toBeUndefined();
    expect(entries.find((e) => e.alias === 'extra')?.certPems).toEqual([keyEntry.certPems[0]]);
    expect(() => readJks(readFileSync(file), 'nope')).toThrow(expect.objectContaining({ code: 'WRONG_PASSWORD' }));
  });
});
