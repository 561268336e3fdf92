import { Injectable } from '@nestjs/common';
import { KeyObject } from 'node:crypto';
import { AcmeProblem, headerJwk, Jwk, Jws, keyFromJwk, malformed, parseJws, verifyJws } from '../acme';
import { AccountRow, AcmeRepository } from './acme.repository';
import { AcmeUrls } from './acme-urls';
import { NonceStore } from './nonces';

/** What reached an ACME route: the CA it names, the absolute URL asked for, the raw body. */
export interface AcmeHttpRequest {
  urls: AcmeUrls;
  url: string;
  contentType: string;
  body: string | undefined;
  ip: string;
  userAgent: string;
}

export interface VerifiedRequest {
  jws: Jws;
  caId: number;
  ca: { id: number; org_id: number | null; name: string };
  /** With kid: the account that signed. */
  account?: AccountRow;
  /** With jwk: the key that signed (new-account, revocation by certificate key). */
  jwk?: Jwk;
  key: KeyObject;
}

/**
 * RFC 8555 §6.2-6.5: content type, flattened JWS, url header equal to the request URL,
 * a fresh nonce (spent), and a signature by the account key (kid) or the embedded jwk.
 */
@Injectable()
export class AcmeVerifier {
  constructor(
    private readonly repo: AcmeRepository,
    private readonly nonces: NonceStore,
  ) {}

  async ca(urls: AcmeUrls) {
    const ca = await this.repo.caByName(urls.caName);
    if (!ca) throw new AcmeProblem('malformed', `No certificate authority named ${urls.caName}`, 404);
    return ca;
  }

  async verify(req: AcmeHttpRequest, keyBy: 'kid' | 'jwk' | 'either'): Promise<VerifiedRequest> {
    const ca = await this.ca(req.urls);
    if (!/^application\/jose\+json\b/i.test(req.contentType)) {
      throw new AcmeProblem('malformed', 'ACME requests must be application/jose+json', 415);
    }
    let body: unknown;
    try {
      body = JSON.parse(req.body ?? '');
    } catch {
      throw malformed('The request body is not JSON');
    }
    const jws = parseJws(body);
    const h = jws.protected;
    if (h.url !== req.url) throw new AcmeProblem('unauthorized', `The JWS url header must be ${req.url}`);
    const jwk = headerJwk(jws);
    if ((jwk === undefined) === (h.kid === undefined)) throw malformed('The JWS header needs exactly one of jwk and kid');
    if (keyBy === 'kid' && jwk) throw malformed('This request must be signed with the account key (kid), not a jwk');
    if (keyBy === 'jwk' && !jwk) throw malformed('This request must carry the jwk of the new key, not a kid');
    await this.nonces.consume(h.nonce);
    if (jwk) {
      const key = keyFromJwk(jwk);
      verifyJws(jws, key);
      return { jws, caId: ca.id, ca, jwk, key };
    }
    const id = typeof h.kid === 'string' ? req.urls.accountIdOf(h.kid) : undefined;
    const account = id === undefined ? undefined : await this.repo.accountById(id);
    if (!account || account.ca_id !== ca.id) throw new AcmeProblem('accountDoesNotExist', 'The kid names no account of this ACME server');
    const key = keyFromJwk(account.jwk);
    verifyJws(jws, key);
    if (account.status !== 'valid') throw new AcmeProblem('unauthorized', `The account is ${account.status}`);
    return { jws, caId: ca.id, ca, account, key };
  }
}
