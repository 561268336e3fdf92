import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { issueOcspCertificate, OcspIndexEntry, startOcspResponder } from '../../../../../test/support/ocsp-responder';
import { createCa, KeyedCertificate, Peer, startHttpServer, startSilentServer } from '../../../../../test/support/tls-peers';
import { boundedFetch } from './bounded-fetch';
import { checkOcsp, ocspUrls } from './ocsp';
import { buildOcspRequest } from './ocsp-request';
import { readOcspResponse } from './ocsp-response';
import { freePort } from '../../../../../test/support/free-port';

const LIMITS = { timeoutMs: 3000, maxBytes: 64 * 1024, maxUrls: 3 };
const ENTRIES: OcspIndexEntry[] = [
  { serialNumber: '0badc0de', status: 'R' },
  { serialNumber: '600d', status: 'V' },
];

describe('checkOcsp (openssl ocsp responder on loopback)', () => {
  const peers: Peer[] = [];
  let ca: KeyedCertificate;
  // Responder port per signer setup, reserved before the leaves that name it are issued.
  const ports: Record<'issuer' | 'delegate' | 'forged' | 'forgedBare' | 'notResponder', number> = {
    issuer: 0,
    delegate: 0,
    forged: 0,
    forgedBare: 0,
    notResponder: 0,
  };
  const url = (port: number) => `http://127.0.0.1:${port}/`;
  const leaf = (serialNumber: string, port: number) =>
    issueOcspCertificate(ca, { subject: `CN=${serialNumber}.test`, serialNumber, ocspUrl: url(port) });
  const check = async (cert: KeyedCertificate, options = LIMITS) => {
    const errors: string[] = [];
    const revoked = await checkOcsp(cert.cert, ca.cert, options, errors);
    return { revoked, errors };
  };

  beforeAll(async () => {
    ca = await createCa('CN=OCSP Test CA');
    // Same issuer name, different key: must be rejected on signature, not trusted by name.
    const forger = await createCa('CN=OCSP Test CA');
    const delegate = await issueOcspCertificate(ca, { subject: 'CN=OCSP Delegate', serialNumber: 'de1e', ocspSigning: true });
    const notResponder = await issueOcspCertificate(ca, { subject: 'CN=Not A Responder', serialNumber: 'de2e' });
    const setups = [
      ['issuer', {}],
      ['delegate', { signer: delegate }],
      ['forged', { signer: forger }],
      ['forgedBare', { signer: forger, args: ['-resp_no_certs'] }],
      ['notResponder', { signer: notResponder }],
    ] as const;
    for (const [name, setup] of setups) {
      const peer = await startOcspResponder({ ca, entries: ENTRIES, ...setup });
      peers.push(peer);
      ports[name] = peer.port;
    }
  });

  afterAll(async () => {
    await Promise.all(peers.map((peer) => peer.stop()));
  });

  it('reads the responder URLs from Authority Information Access', async () => {
    const cert = await leaf('600d', 8080);
    expect(ocspUrls(cert.cert)).toEqual(['http://127.0.0.1:8080/']);
    expect(ocspUrls(ca.cert)).toEqual([]);
  });

  it('says revoked for a serial the issuer-signed response marks revoked', async () => {
    await expect(check(await leaf('0badc0de', ports.issuer))).resolves.toEqual({ revoked: true, errors: [] });
  });

  it('says good for a serial the index holds as valid', async () => {
    await expect(check(await leaf('600d', ports.issuer))).resolves.toEqual({ revoked: false, errors: [] });
  });

  it('accepts a delegated responder the issuer certified for OCSP signing', async () => {
    await expect(check(await leaf('0badc0de', ports.delegate))).resolves.toEqual({ revoked: true, errors: [] });
    await expect(check(await leaf('600d', ports.delegate))).resolves.toEqual({ revoked: false, errors: [] });
  });

  it('is unknown when the response is signed by another key', async () => {
    expect(await check(await leaf('0badc0de', ports.forgedBare))).toEqual({
      revoked: null,
      errors: [expect.stringContaining('bad signature')],
    });
    // The forger includes its own certificate, carrying the issuer's name: still not trusted.
    expect(await check(await leaf('0badc0de', ports.forged))).toEqual({
      revoked: null,
      errors: [expect.stringContaining('is not an OCSP responder authorised by')],
    });
  });

  it('is unknown when the signer was issued by the CA but not for OCSP signing', async () => {
    expect(await check(await leaf('600d', ports.notResponder))).toEqual({
      revoked: null,
      errors: [expect.stringContaining('CN=Not A Responder is not an OCSP responder')],
    });
  });

  it('is unknown when the responder does not know the serial', async () => {
    expect(await check(await leaf('5eed', ports.issuer))).toEqual({
      revoked: null,
      errors: [expect.stringContaining('does not know the certificate')],
    });
  });

  it('is unknown when the responder is down, answers 404, or never answers', async () => {
    const closed = await freePort();
    expect(await check(await leaf('600d', closed))).toEqual({ revoked: null, errors: [expect.stringContaining('ECONNREFUSED')] });

    const notFound = await startHttpServer();
    peers.push(notFound);
    expect(await check(await leaf('600d', notFound.port))).toEqual({ revoked: null, errors: [expect.stringContaining('HTTP 404')] });

    const silent = await startSilentServer();
    peers.push(silent);
    const started = Date.now();
    expect(await check(await leaf('600d', silent.port), { ...LIMITS, timeoutMs: 300 })).toEqual({
      revoked: null,
      errors: [expect.stringContaining('Timed out')],
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('tries the next responder when the first fails', async () => {
    const closed = await freePort();
    const cert = await issueOcspCertificate(ca, { subject: 'CN=two.test', serialNumber: '0badc0de', ocspUrl: [url(closed), url(ports.issuer)] });
    const errors: string[] = [];
    await expect(checkOcsp(cert.cert, ca.cert, LIMITS, errors)).resolves.toBe(true);
    expect(errors).toEqual([expect.stringContaining('ECONNREFUSED')]);
  });

  describe('reading a fetched response', () => {
    async function fetchResponse(serial: string) {
      const cert = await leaf(serial, ports.issuer);
      const request = buildOcspRequest(AsnConvert.parse(cert.cert.rawData, Certificate), AsnConvert.parse(ca.cert.rawData, Certificate));
      const body = await boundedFetch(url(ports.issuer), { ...LIMITS, method: 'POST', body: request.der, contentType: 'application/ocsp-request' });
      return { request, body };
    }

    it('refuses a response past its nextUpdate', async () => {
      const { request, body } = await fetchResponse('600d');
      await expect(readOcspResponse(body, { ...request, issuer: ca.cert, now: new Date() })).resolves.toBe(false);
      const later = new Date(Date.now() + 3_600_000);
      await expect(readOcspResponse(body, { ...request, issuer: ca.cert, now: later })).rejects.toThrow('stale');
    });

    it('refuses a replayed response carrying another request nonce', async () => {
      const { body } = await fetchResponse('0badc0de');
      const other = (await fetchResponse('0badc0de')).request;
      await expect(readOcspResponse(body, { ...other, issuer: ca.cert, now: new Date() })).rejects.toThrow('nonce');
    });

    it('refuses a response about another certificate', async () => {
      const { request, body } = await fetchResponse('600d');
      const unrelated = await leaf('0badc0de', ports.issuer);
      const { certId } = buildOcspRequest(AsnConvert.parse(unrelated.cert.rawData, Certificate), AsnConvert.parse(ca.cert.rawData, Certificate));
      await expect(readOcspResponse(body, { ...request, certId, issuer: ca.cert, now: new Date() })).rejects.toThrow('does not cover');
    });
  });
});
