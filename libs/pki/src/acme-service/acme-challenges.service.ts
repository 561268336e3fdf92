import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { AcmeProblem, Identifier, keyAuthorization, notFound } from '../acme';
import { acmeActor } from './acme-actor';
import { AccountRow, AcmeRepository } from './acme.repository';
import { AcmeReply, ok } from './acme-reply';
import { AcmeHttpRequest, AcmeVerifier } from './acme-verifier';
import { challengeView } from './acme-views';
import { ChallengeType, ChallengeValidator } from './challenge-validator';

/**
 * Responding to a challenge validates it before answering: the client's server is up by
 * then, and no challenge is left "processing" by an instance that stopped. One instance
 * wins the pending → processing step; the others answer the state it reaches.
 */
@Injectable()
export class AcmeChallengesService {
  private readonly logger = new Logger('ACME');

  constructor(
    private readonly dataSource: DataSource,
    private readonly repo: AcmeRepository,
    private readonly verifier: AcmeVerifier,
    private readonly validator: ChallengeValidator,
    private readonly audit: AuditWriter,
  ) {}

  async respond(req: AcmeHttpRequest, id: number): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'kid');
    const account = v.account!;
    const challenge = await this.repo.challenge(account.id, id);
    if (!challenge) throw notFound('challenge');
    const authz = (await this.repo.authz(account.id, challenge.authorization_id))!;
    const links = [`<${req.urls.authz(authz.id)}>;rel="up"`];
    // POST-as-GET reads; an empty object {} asks for validation.
    if (v.jws.payloadText === '' || authz.status !== 'pending' || !(await this.repo.claimChallenge(id))) {
      return ok(challengeView((await this.repo.challenge(account.id, id))!, req.urls), { links });
    }
    const identifier: Identifier = { type: authz.identifier_type, value: authz.identifier_value };
    let error: AcmeProblem | undefined;
    if (new Date(authz.expires) < new Date()) error = new AcmeProblem('unauthorized', 'The authorization has expired', 403, identifier);
    else {
      try {
        await this.validator.validate(challenge.type as ChallengeType, identifier, challenge.token, keyAuthorization(challenge.token, account.jwk));
      } catch (e) {
        if (!(e instanceof AcmeProblem)) this.logger.warn(`challenge ${id}: ${(e as Error).message}`);
        error = e instanceof AcmeProblem ? e : new AcmeProblem('connection', `Validation failed: ${(e as Error).message}`, 400, identifier);
      }
    }
    await this.record(req, account, challenge.authorization_id, authz.order_id, id, identifier, challenge.type, error);
    return ok(challengeView((await this.repo.challenge(account.id, id))!, req.urls), { links });
  }

  private async record(
    req: AcmeHttpRequest,
    account: AccountRow,
    authzId: number,
    orderId: number,
    challengeId: number,
    identifier: Identifier,
    type: string,
    error: AcmeProblem | undefined,
  ): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      // Serialises the last two authorisations of an order finishing at once, so one sees both valid.
      await this.repo.lockOrder(m, orderId);
      await this.repo.finishChallenge(m, challengeId, error ? 'invalid' : 'valid', error?.toDocument());
      await this.repo.setAuthzStatus(m, authzId, error ? 'invalid' : 'valid');
      if (error) {
        await this.repo.moveOrder(m, orderId, ['pending'], 'invalid', { error: error.toDocument() });
      } else {
        const all = await this.repo.authzOfOrder(orderId, m);
        if (all.every((z) => z.status === 'valid')) await this.repo.moveOrder(m, orderId, ['pending'], 'ready');
      }
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.AcmeChallengeValidated,
          outcome: error ? 'Failed' : 'Success',
          actor: acmeActor(account, req),
          target: identifier.value,
          description: `${type} for order ${orderId}${error ? `: ${error.detail}` : ''}`,
        },
        m,
      );
    });
  }
}
