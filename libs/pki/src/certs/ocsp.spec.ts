import 'reflect-metadata';
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { X509Certificate } from '@peculiar/x509';
import { buildOcspRequest } from '../discovery/revocation/ocsp-request';
import { readOcspResponse } from '../discovery/revocation/ocsp-response';
import { spkiOf } from './build';
import { CertificateAuthority, createRootCa, publicKeyBitsOf } from './ca';
import { generateKeyPair, loadPrivateKey } from './keys';
import { buildOcspResponse, certIdNamesCa, certIdSerial, OcspCertStatus, OcspSigner, parseOcspRequest } from './ocsp';
import { readCertificateDers } from './parse';
import { opensslAll, TempDir } from './spec-tools';
import { buildNameDer } from './subject';

describe('OCSP responder (pure)', () => {
  const tmp = new TempDir();
  afterAll(() => tmp.remove());
  let ca: CertificateAuthority;
  let leafPem: string;
  let responder: NonNullable<OcspSigner['responder']>;

  beforeAll(async () => {
    const root = await createRootCa({ subject: { commonName: 'OCSP Test CA' }, keyAlgorithm: 'EC', keyLength: 256 });
    ca = await CertificateAuthority.load({ ...root, publication: { ocspUrl: 'http://127.0.0.1:1/ocsp/test', crlUrl: 'http://127.0.0.1:1/crl/test.crl' } });
    const key = await generateKeyPair({ algorithm: 'EC', length: 256 });
    const spki = spkiOf(createPublicKey(key.publicKeyPem));
    leafPem = (await ca.issue({ subjectDer: buildNameDer({ commonName: 'leaf.test' }), spkiDer: spki, sans: [{ type: 'dns', value: 'leaf.test' }] })).certPem;
    const rKey = await generateKeyPair({ algorithm: 'EC', length: 256 });
    const rSpki = spkiOf(createPublicKey(rKey.publicKeyPem));
    const rCert = await ca.issue({ subjectDer: buildNameDer({ commonName: 'OCSP Test CA OCSP Responder' }), spkiDer: rSpki }, { ocspResponder: true, validityDays: 30 });
    responder = { key: loadPrivateKey(rKey.privateKeyPem), certDer: readCertificateDers(rCert.certPem)[0], publicKeyBits: publicKeyBitsOf(rSpki), signatureAlgorithm: 'SHA256withECDSA' };
    const text = opensslAll('x509', '-in', tmp.file('responder.pem', rCert.certPem), '-noout', '-text');
    expect(text).toMatch(/OCSP Signing/);
    expect(text).toMatch(/OCSP No Check/);
  });

  it('writes the OCSP responder URL and the CRL point into issued certificates', () => {
    const text = opensslAll('x509', '-in', tmp.file('leaf.pem', leafPem), '-noout', '-text');
    expect(text).toMatch(/OCSP - URI:http:\/\/127.0.0.1:1\/ocsp\/test/);
    expect(text).toMatch(/URI:http:\/\/127.0.0.1:1\/crl\/test.crl/);
  });

  async function answer(status: OcspCertStatus, delegated: boolean) {
    const leaf = AsnConvert.parse(readCertificateDers(leafPem)[0], Certificate);
    const issuer = AsnConvert.parse(readCertificateDers(ca.certPem)[0], Certificate);
    const request = buildOcspRequest(leaf, issuer);
    const parsed = parseOcspRequest(request.der);
    expect(certIdNamesCa(parsed.certIds[0], ca)).toBe(true);
    expect(certIdSerial(parsed.certIds[0])).toBe(new X509Certificate(leafPem).serialNumber.toUpperCase());
    const now = new Date();
    const der = await buildOcspResponse(
      { ca, responder: delegated ? responder : undefined },
      { answers: [{ certId: parsed.certIds[0], status }], nonce: parsed.nonce, thisUpdate: now, nextUpdate: new Date(now.getTime() + 3_600_000) },
    );
    return readOcspResponse(der, { certId: request.certId, nonce: request.nonce, issuer: new X509Certificate(ca.certPem), now });
  }

  it('answers good and revoked, signed by the CA or by its delegated responder, that our checker accepts', async () => {
    await expect(answer({ status: 'good' }, false)).resolves.toBe(false);
    await expect(answer({ status: 'revoked', revokedAt: new Date(), reason: 1 }, false)).resolves.toBe(true);
    await expect(answer({ status: 'good' }, true)).resolves.toBe(false);
    await expect(answer({ status: 'unknown' }, true)).rejects.toThrow(/does not know/);
  });

  it('refuses a request that is not OCSP', () => {
    expect(() => parseOcspRequest(Buffer.from('hello'))).toThrow(/could not be parsed/);
  });

  it('is read by openssl ocsp with the nonce checked', async () => {
    const leafFile = tmp.file('leaf.pem', leafPem);
    const caFile = tmp.file('ca.pem', ca.certPem);
    opensslAll('ocsp', '-issuer', caFile, '-cert', leafFile, '-reqout', tmp.file('req.der'));
    const parsed = parseOcspRequest(readFileSync(tmp.file('req.der')));
    const now = new Date();
    const der = await buildOcspResponse(
      { ca, responder },
      { answers: [{ certId: parsed.certIds[0], status: { status: 'revoked', revokedAt: now, reason: 4 } }], nonce: parsed.nonce, thisUpdate: now, nextUpdate: new Date(now.getTime() + 3_600_000) },
    );
    const resp = tmp.file('resp.der', der);
    // With -reqin openssl checks the echoed nonce; with -cert it prints the status.
    expect(opensslAll('ocsp', '-respin', resp, '-reqin', tmp.file('req.der'), '-CAfile', caFile)).toMatch(/Response verify OK/);
    const out = opensslAll('ocsp', '-respin', resp, '-issuer', caFile, '-CAfile', caFile, '-cert', leafFile, '-no_nonce');
    expect(out).toMatch(/Response verify OK/);
    expect(out).toMatch(/leaf.pem: revoked/);
    expect(out).toMatch(/Reason: superseded/);
    // Signed by the CA key itself (OCSP_SIGNER=ca): no certificate in the response.
    const byCa = await buildOcspResponse(
      { ca },
      { answers: [{ certId: parsed.certIds[0], status: { status: 'good' } }], nonce: parsed.nonce, thisUpdate: now, nextUpdate: new Date(now.getTime() + 3_600_000) },
    );
    const caOut = opensslAll('ocsp', '-respin', tmp.file('resp-ca.der', byCa), '-issuer', caFile, '-CAfile', caFile, '-cert', leafFile, '-no_nonce');
    expect(caOut).toMatch(/Response verify OK/);
    expect(caOut).toMatch(/leaf.pem: good/);
  });
});
