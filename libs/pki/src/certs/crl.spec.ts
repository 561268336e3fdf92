import { CertificateAuthority, createRootCa } from './ca';
import { createCrl, findRevokedEntry, parseCrl, revocationStatus, verifyCrl } from './crl';
import { createCsr } from './csr';
import { openssl, TempDir } from './spec-tools';

describe('CRL', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());

  it.each(['RSA', 'EC'] as const)('builds a signed v2 CRL for a %s CA that openssl reads', async (alg) => {
    const root = await createRootCa({ subject: { commonName: `CRL ${alg} CA` }, keyAlgorithm: alg });
    const ca = await CertificateAuthority.load(root);
    const csr = await createCsr({ subject: { commonName: 'revoked.example.com' }, keyAlgorithm: 'EC' });
    const [a, b, c, d] = await Promise.all([1, 2, 3, 4].map(() => ca.signCsr(csr.csrPem)));
    const when = new Date('2026-01-02T03:04:05Z');
    const crl = await createCrl(ca, {
      crlNumber: 42,
      thisUpdate: new Date('2026-01-03T00:00:00Z'),
      nextUpdate: new Date('2026-01-10T00:00:00Z'),
      entries: [
        { serialNumber: a.serialNumber, revocationDate: when, reason: 1 },
        { serialNumber: b.serialNumber, revocationDate: when, reason: 6 },
        { serialNumber: c.serialNumber, revocationDate: when, reason: 7 },
        { serialNumber: d.serialNumber, revocationDate: when, reason: 0 },
      ],
    });
    expect(crl.listedSerials).toEqual([a.serialNumber, b.serialNumber, d.serialNumber]);
    const file = tmp.file(`${alg}.crl`, crl.crlPem);
    const text = openssl('crl', '-in', file, '-text', '-noout');
    expect(text).toMatch(/Version 2/);
    expect(text).toMatch(/X509v3 CRL Number:\s+42/);
    expect(text).toMatch(/X509v3 Authority Key Identifier/);
    expect(text).toMatch(/Next Update: Jan 10 00:00:00 2026 GMT/);
    expect(text).toMatch(new RegExp(`Serial Number: ${a.serialNumber}\\s+Revocation Date: Jan  2 03:04:05 2026 GMT\\s+CRL entry extensions:\\s+X509v3 CRL Reason Code:\\s+Key Compromise`));
    expect(text).toMatch(new RegExp(`Serial Number: ${b.serialNumber}[\\s\\S]*?Certificate Hold`));
    expect(text).not.toContain(c.serialNumber);
    expect(text).toContain(d.serialNumber);
    expect(openssl('crl', '-in', file, '-CAfile', tmp.file('ca.pem', root.certPem), '-noout', '-verify')).toBe('');

    const parsed = parseCrl(crl.der);
    expect(parsed.crlNumber).toBe('42');
    expect(findRevokedEntry(parsed, a.serialNumber)).toMatchObject({ reason: 1, reasonName: 'Key compromise', revocationDate: when });
    expect(findRevokedEntry(crl.crlPem, d.serialNumber)).toMatchObject({ reason: undefined, reasonName: 'Unspecified' });
    expect(findRevokedEntry(parsed, c.serialNumber)).toBeUndefined();
    expect(await verifyCrl(parsed, root.certPem)).toBe(true);
    expect(await revocationStatus(a.certPem, crl.crlPem, root.certPem)).toMatchObject({ revoked: true });
    expect(await revocationStatus(c.certPem, crl.crlPem, root.certPem)).toMatchObject({ revoked: false });
  });

  it('refuses reason codes outside 0-7', async () => {
    const ca = await CertificateAuthority.load(await createRootCa({ subject: { commonName: 'x' }, keyAlgorithm: 'EC' }));
    await expect(createCrl(ca, { crlNumber: 1, entries: [{ serialNumber: '01', revocationDate: new Date(), reason: 9 }] })).rejects.toThrow(
      /0 to 7/,
    );
  });

  it('reads a CRL made by openssl and rejects one from another issuer', async () => {
    const key = tmp.file('ca.key');
    const cert = tmp.file('ca.crt');
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '5', '-subj', '/CN=ossl CA');
    tmp.file('index.txt', 'R\t300101000000Z\t260101000000Z,superseded\t0ABC\tunknown\t/CN=old\n');
    tmp.file('crlnumber', '05\n');
    tmp.file('ca.cnf', `[ca]\ndefault_ca=d\n[d]\ndatabase=${tmp.path}/index.txt\ncrlnumber=${tmp.path}/crlnumber\ndefault_md=sha256\ndefault_crl_days=7\n`);
    const crlFile = tmp.file('o.crl');
    openssl('ca', '-config', tmp.file('ca.cnf'), '-gencrl', '-keyfile', key, '-cert', cert, '-out', crlFile);
    const { readFileSync } = await import('node:fs');
    const parsed = parseCrl(readFileSync(crlFile));
    expect(parsed.crlNumber).toBe('5');
    expect(findRevokedEntry(parsed, '0abc')).toMatchObject({ reason: 4, reasonName: 'Superseded' });
    expect(await verifyCrl(parsed, readFileSync(cert, 'utf8'))).toBe(true);
    const other = await createRootCa({ subject: { commonName: 'other' }, keyAlgorithm: 'EC' });
    expect(await verifyCrl(parsed, other.certPem)).toBe(false);
  });
});
