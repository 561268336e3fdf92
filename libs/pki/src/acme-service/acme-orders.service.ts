import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AcmeProblem, Identifier, isAllowed, jsonPayload, malformed, notFound, parseIdentifiers } from '../acme';
import { allowedNamesFor } from '../cert-service';
import { AcmeRepository } from './acme.repository';
import { AcmeReply, created, ok } from './acme-reply';
import { AcmeHttpRequest, AcmeVerifier } from './acme-verifier';
import { authzView, orderView } from './acme-views';
import { CHALLENGE_TYPES } from './challenge-validator';

// How long a client has to prove control and finalise.
const ORDER_LIFETIME_MS = 24 * 3600 * 1000;

/** new-order, order and authorisation reads, authorisation deactivation. */
@Injectable()
export class AcmeOrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repo: AcmeRepository,
    private readonly verifier: AcmeVerifier,
  ) {}

  async newOrder(req: AcmeHttpRequest): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'kid');
    const payload = jsonPayload(v.jws);
    if (payload.notBefore !== undefined || payload.notAfter !== undefined) {
      throw malformed('notBefore and notAfter are not supported; the validity comes from the CA profile');
    }
    const identifiers = parseIdentifiers(payload.identifiers);
    // The account's organisation's list for this CA (see allowedNamesFor); `*` alone allows no ACME name.
    refuseOutside(identifiers, await allowedNamesFor(this.dataSource.manager, v.account!.org_id, v.ca), req.urls.caName);
    const expires = new Date(Date.now() + ORDER_LIFETIME_MS);
    const id = await this.dataSource.transaction(async (m) => {
      const orderId = await this.repo.insertOrder(m, v.account!.id, identifiers, expires);
      for (const identifier of identifiers) {
        const authzId = await this.repo.insertAuthz(m, orderId, identifier, expires);
        // One token per authorisation, shared by its challenges (as Boulder does).
        const token = randomBytes(32).toString('base64url');
        for (const type of CHALLENGE_TYPES) await this.repo.insertChallenge(m, authzId, type, token);
      }
      return orderId;
    });
    return created(await this.orderBody(v.account!.id, id, req), req.urls.order(id));
  }

  async order(req: AcmeHttpRequest, id: number): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'kid');
    return ok(await this.orderBody(v.account!.id, id, req));
  }

  async orderBody(accountId: number, id: number, req: AcmeHttpRequest) {
    const order = await this.repo.order(accountId, id);
    if (!order) throw notFound('order');
    if (['pending', 'ready'].includes(order.status) && new Date(order.expires) < new Date()) order.status = 'invalid';
    return orderView(order, await this.repo.authzOfOrder(id), req.urls);
  }

  /** POST-as-GET reads it; {"status":"deactivated"} deactivates it (RFC 8555 §7.5.2). */
  async authz(req: AcmeHttpRequest, id: number): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'kid');
    const authz = await this.repo.authz(v.account!.id, id);
    if (!authz) throw notFound('authorization');
    if (v.jws.payloadText !== '') {
      const payload = jsonPayload(v.jws);
      if (payload.status !== 'deactivated') throw malformed('An authorization can only be set to status "deactivated"');
      if (!['pending', 'valid'].includes(authz.status)) throw malformed(`The authorization is ${authz.status}`);
      await this.dataSource.transaction(async (m) => {
        await this.repo.setAuthzStatus(m, id, 'deactivated');
        await this.repo.moveOrder(m, authz.order_id, ['pending', 'ready'], 'invalid');
      });
      authz.status = 'deactivated';
    }
    if (authz.status === 'pending' && new Date(authz.expires) < new Date()) authz.status = 'expired';
    return ok(authzView(authz, await this.repo.challengesOf(id), req.urls));
  }
}

/** The CA profile's allowed-domains setting: every identifier must be inside it. */
function refuseOutside(identifiers: Identifier[], allowed: string[], caName: string): void {
  const refused = identifiers.filter((i) => !isAllowed(i, allowed));
  if (refused.length === 0) return;
  const names = refused.map((i) => i.value).join(', ');
  const why = allowed.some((entry) => entry !== '*')
    ? `outside the names this organisation may have from CA ${caName}`
    : `no names are allowed for this organisation with CA ${caName}`;
  throw new AcmeProblem('rejectedIdentifier', `Refused ${names}: ${why}`, 400, refused.length === 1 ? refused[0] : undefined);
}
