import 'reflect-metadata';
import { createPublicKey } from 'node:crypto';
import { BasicOCSPResponse, OCSPRequest, OCSPResponse } from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { AppConfig } from '@app/config';
import { buildOcspRequest } from '../discovery/revocation/ocsp-request';
import { CertificateAuthority, createRootCa, generateKeyPair, readCertificateDers } from '../certs';
import { spkiOf } from '../certs/build';
import { buildNameDer } from '../certs/subject';
import { AuthorityRepository } from './authority.repository';
import { CertificateAuthoritiesService } from './certificate-authorities.service';
import { OcspResponders } from './ocsp-responders';
import { OcspService } from './ocsp.service';

/** The cache and re-signing of OcspService, with the CA key signing (OCSP_SIGNER=ca) and a moved clock. */
describe('OcspService cache', () => {
  let service: OcspService;
  let requestDer: Buffer;
  let status: { revoked_at: Date | null; revoke_reason: number | null } | undefined;

  beforeAll(async () => {
    const ca = await CertificateAuthority.load(await createRootCa({ subject: { commonName: 'Cache CA' }, keyAlgorithm: 'EC', keyLength: 256 }));
    const keys = await generateKeyPair({ algorithm: 'EC', length: 256 });
    const leaf = await ca.issue({ subjectDer: buildNameDer({ commonName: 'cached.test' }), spkiDer: spkiOf(createPublicKey(keys.publicKeyPem)) });
    const parse = (pem: string) => AsnConvert.parse(readCertificateDers(pem)[0], Certificate);
    const built = buildOcspRequest(parse(leaf.certPem), parse(ca.certPem));
    // The same request without its nonce: a cacheable one.
    const request = AsnConvert.parse(built.der, OCSPRequest);
    request.tbsRequest.requestExtensions = undefined;
    requestDer = Buffer.from(AsnConvert.serialize(request));
    const row = { id: 1, org_id: null, name: 'cache-ca' };
    const authorities = { findPublishedByRef: async () => ({ ca: row, ambiguous: false }), statusOfSerial: async () => status } as unknown as AuthorityRepository;
    const cas = { load: async () => ca } as unknown as CertificateAuthoritiesService;
    service = new OcspService(authorities, cas, {} as OcspResponders, { ocspSigner: 'ca' } as AppConfig);
  });
  afterEach(() => jest.restoreAllMocks());

  const thisUpdate = (der: Buffer) => {
    const basic = AsnConvert.parse(AsnConvert.parse(der, OCSPResponse).responseBytes!.response.buffer, BasicOCSPResponse);
    return basic.tbsResponseData.responses[0];
  };

  it('serves the same signed answer until half its life has passed, then re-signs before nextUpdate', async () => {
    status = { revoked_at: null, revoke_reason: null };
    const start = Date.now();
    const first = await service.respond('cache-ca', requestDer);
    expect(first.maxAgeSeconds).toBe(3600);
    jest.spyOn(Date, 'now').mockReturnValue(start + 11 * 3_600_000);
    const again = await service.respond('cache-ca', requestDer);
    expect(again.der.equals(first.der)).toBe(true);
    jest.spyOn(Date, 'now').mockReturnValue(start + 13 * 3_600_000);
    const resigned = await service.respond('cache-ca', requestDer);
    expect(resigned.der.equals(first.der)).toBe(false);
    const before = thisUpdate(first.der);
    const after = thisUpdate(resigned.der);
    expect(after.thisUpdate.getTime()).toBeGreaterThan(before.thisUpdate.getTime());
    expect(after.thisUpdate.getTime()).toBeLessThan(before.nextUpdate!.getTime());
  });

  it('never serves a cached answer for another status', async () => {
    status = { revoked_at: null, revoke_reason: null };
    const good = await service.respond('cache-ca', requestDer);
    status = { revoked_at: new Date(), revoke_reason: 1 };
    const revoked = await service.respond('cache-ca', requestDer);
    expect(thisUpdate(good.der).certStatus.good).toBeNull();
    expect(thisUpdate(revoked.der).certStatus.revoked?.revocationReason?.reason).toBe(1);
  });
});
