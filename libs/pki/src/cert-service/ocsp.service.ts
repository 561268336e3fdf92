import { Inject, Injectable, Logger } from '@nestjs/common';
import { OCSPResponseStatus } from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  buildOcspResponse,
  CertificateError,
  certIdNamesCa,
  certIdSerial,
  OcspAnswer,
  OcspCertStatus,
  ocspErrorResponse,
  parseOcspRequest,
  REMOVE_FROM_CRL,
} from '../certs';
import { AuthorityRepository } from './authority.repository';
import { CertificateAuthoritiesService } from './certificate-authorities.service';
import { OcspResponders } from './ocsp-responders';

/** Responses say they are good for a day; a cached one is re-signed once half of that has passed. */
const RESPONSE_LIFETIME_MS = 86_400_000;
const RESIGN_AFTER_MS = RESPONSE_LIFETIME_MS / 2;
const CACHE_LIMIT = 10_000;
const HTTP_MAX_AGE_S = 3600;

export interface OcspReply {
  der: Buffer;
  /** Seconds a cache (HTTP GET) may keep the answer; 0 for errors and nonce answers. */
  maxAgeSeconds: number;
}

interface Cached {
  der: Buffer;
  producedAt: number;
}

/**
 * The OCSP responder of our CAs (RFC 6960, RFC 5019 profile). The status is read from the
 * database on every request, so a revocation on any instance shows at once; what is cached
 * is the signed answer for that status, re-signed before its nextUpdate. A request with a
 * nonce gets a freshly signed answer that echoes it.
 */
@Injectable()
export class OcspService {
  private readonly logger = new Logger('OcspService');
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly authorities: AuthorityRepository,
    private readonly cas: CertificateAuthoritiesService,
    private readonly responders: OcspResponders,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async respond(caRef: string, requestDer: Buffer): Promise<OcspReply> {
    try {
      return await this.answer(caRef, requestDer);
    } catch (error) {
      if (error instanceof CertificateError) return failure(OCSPResponseStatus.malformedRequest);
      this.logger.error(`OCSP responder of ${caRef} failed: ${(error as Error).message}`);
      return failure(OCSPResponseStatus.internalError);
    }
  }

  private async answer(caRef: string, requestDer: Buffer): Promise<OcspReply> {
    const request = parseOcspRequest(requestDer);
    // Resolved like /crl and /ca: by id, or by a name only one CA holds.
    const { ca: row } = await this.authorities.findPublishedByRef(caRef);
    if (!row) return failure(OCSPResponseStatus.unauthorized);
    const ca = await this.cas.load(row);
    if (!request.certIds.some((id) => certIdNamesCa(id, ca))) return failure(OCSPResponseStatus.unauthorized);
    const answers: OcspAnswer[] = [];
    for (const certId of request.certIds) {
      const known = certIdNamesCa(certId, ca) ? await this.authorities.statusOfSerial(row, certIdSerial(certId)) : undefined;
      answers.push({ certId, status: statusOf(known) });
    }
    const cacheKey = request.nonce
      ? undefined
      : `${row.id}|${answers.map((a) => `${Buffer.from(AsnConvert.serialize(a.certId)).toString('hex')}=${statusKey(a.status)}`).join(',')}`;
    const now = Date.now();
    const hit = cacheKey ? this.cache.get(cacheKey) : undefined;
    if (hit && now - hit.producedAt < RESIGN_AFTER_MS) return { der: hit.der, maxAgeSeconds: maxAge(hit.producedAt, now) };

    const responder = this.config.ocspSigner === 'delegated' ? await this.responders.responderFor(row, ca) : undefined;
    const der = await buildOcspResponse(
      { ca, responder },
      { answers, nonce: request.nonce, thisUpdate: new Date(now), nextUpdate: new Date(now + RESPONSE_LIFETIME_MS) },
    );
    if (!cacheKey) return { der, maxAgeSeconds: 0 };
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.delete(cacheKey);
    this.cache.set(cacheKey, { der, producedAt: now });
    return { der, maxAgeSeconds: maxAge(now, now) };
  }
}

function statusOf(known: { revoked_at: Date | null; revoke_reason: number | null } | undefined): OcspCertStatus {
  if (!known) return { status: 'unknown' };
  if (!known.revoked_at || known.revoke_reason === REMOVE_FROM_CRL) return { status: 'good' };
  return { status: 'revoked', revokedAt: new Date(known.revoked_at), reason: known.revoke_reason ?? 0 };
}

function statusKey(status: OcspCertStatus): string {
  return status.status === 'revoked' ? `R${status.revokedAt.getTime()}:${status.reason}` : status.status;
}

/**
 * What is left of the re-signing window, at most an hour: an HTTP cache in front of the
 * responder may show a revocation that late, never later.
 */
function maxAge(producedAt: number, now: number): number {
  return Math.min(HTTP_MAX_AGE_S, Math.max(0, Math.floor((producedAt + RESIGN_AFTER_MS - now) / 1000)));
}

function failure(status: Exclude<OCSPResponseStatus, OCSPResponseStatus.successful>): OcspReply {
  return { der: ocspErrorResponse(status), maxAgeSeconds: 0 };
}
