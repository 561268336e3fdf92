// OCSP answers signed per second on one core (sequential, one signature in flight): the
// work of the responder for a request with a nonce, which is never served from the cache.
// `npm run bench -- ocsp` (500 iterations per case).
import { createPublicKey } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { buildOcspResponse, CertificateAuthority, certIdNamesCa, createRootCa, generateKeyPair, loadPrivateKey, OcspSigner, parseOcspRequest, publicKeyBitsOf, readCertificateDers } from '../libs/pki/src/certs';
import { spkiOf } from '../libs/pki/src/certs/build';
import { buildNameDer } from '../libs/pki/src/certs/subject';
import { buildOcspRequest } from '../libs/pki/src/discovery/revocation/ocsp-request';

async function caseRow(label: string, keyAlgorithm: 'RSA' | 'EC', keyLength: number, delegated: boolean, iterations: number) {
  const ca = await CertificateAuthority.load(await createRootCa({ subject: { commonName: `Bench ${label}` }, keyAlgorithm, keyLength }));
  const leafKeys = await generateKeyPair({ algorithm: 'EC', length: 256 });
  const leaf = await ca.issue({ subjectDer: buildNameDer({ commonName: 'bench.example.com' }), spkiDer: spkiOf(createPublicKey(leafKeys.publicKeyPem)) });
  let responder: OcspSigner['responder'];
  if (delegated) {
    const keys = await generateKeyPair({ algorithm: 'EC', length: 256 });
    const spki = spkiOf(createPublicKey(keys.publicKeyPem));
    const cert = await ca.issue({ subjectDer: buildNameDer({ commonName: 'Bench responder' }), spkiDer: spki }, { ocspResponder: true });
    responder = { key: loadPrivateKey(keys.privateKeyPem), certDer: readCertificateDers(cert.certPem)[0], publicKeyBits: publicKeyBitsOf(spki), signatureAlgorithm: 'SHA256withECDSA' };
  }
  const parse = (pem: string) => AsnConvert.parse(readCertificateDers(pem)[0], Certificate);
  const request = buildOcspRequest(parse(leaf.certPem), parse(ca.certPem)).der;
  const once = async () => {
    const parsed = parseOcspRequest(request);
    if (!certIdNamesCa(parsed.certIds[0], ca)) throw new Error('CertID does not name the CA');
    const now = new Date();
    return buildOcspResponse({ ca, responder }, { answers: [{ certId: parsed.certIds[0], status: { status: 'good' } }], nonce: parsed.nonce, thisUpdate: now, nextUpdate: new Date(now.getTime() + 86_400_000) });
  };
  for (let i = 0; i < 20; i++) await once();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await once();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { case: label, iterations, 'ms/answer': +(ms / iterations).toFixed(3), 'answers/s': Math.round((iterations * 1000) / ms) };
}

export async function main(iterations = 500) {
  const rows = [
    await caseRow('P-256 delegated responder (default)', 'EC', 384, true, iterations),
    await caseRow('P-384 CA key (OCSP_SIGNER=ca)', 'EC', 384, false, iterations),
    await caseRow('RSA-2048 CA key (OCSP_SIGNER=ca)', 'RSA', 2048, false, iterations),
  ];
  console.log(`node ${process.version}, one core, ${iterations} answers per case (parse request, match CertID, sign with nonce)`);
  console.table(rows);
  return rows;
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
