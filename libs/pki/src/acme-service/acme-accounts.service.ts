import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { AcmeProblem, headerJwk, Jwk, jsonPayload, keyFromJwk, malformed, parseJws, thumbprint, unauthorized, verifyHmacJws, verifyJws } from '../acme';
import { isUniqueViolation } from '../cert-service';
import { acmeActor } from './acme-actor';
import { AccountRow, AcmeRepository } from './acme.repository';
import { AcmeReply, created, ok } from './acme-reply';
import { AcmeHttpRequest, AcmeVerifier } from './acme-verifier';
import { accountView } from './acme-views';
import { EAB_KEY_CONTEXT } from './eab-keys';

const ACCOUNT_KEY_UNIQUE = 'acme_accounts_thumbprint_key';
const EAB_KEY_UNIQUE = 'acme_accounts_eab_key_id_key';

/** new-account (with External Account Binding), account update and deactivation, key-change. */
@Injectable()
export class AcmeAccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repo: AcmeRepository,
    private readonly verifier: AcmeVerifier,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
  ) {}

  async newAccount(req: AcmeHttpRequest): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'jwk');
    const payload = jsonPayload(v.jws);
    const jwk = v.jwk!;
    const existing = await this.repo.accountByThumbprint(thumbprint(jwk));
    if (existing) {
      if (existing.ca_id !== v.caId) throw malformed('This key already belongs to an account of another CA; use a new key');
      return ok(accountView(existing, req.urls), { location: req.urls.account(existing.id) });
    }
    if (payload.onlyReturnExisting === true) throw new AcmeProblem('accountDoesNotExist', 'No account exists for this key');
    const contact = parseContact(payload.contact);
    const eab = await this.checkBinding(req, payload.externalAccountBinding, jwk, v.caId);
    const id = await this.dataSource
      .transaction(async (m) => {
        const newId = await this.repo.insertAccount(m, { orgId: eab.org_id, caId: v.caId, eabKeyId: eab.id, thumbprint: thumbprint(jwk), jwk, contact });
        await this.audit.record(
          {
            category: 'Pki',
            operation: AuditOperation.AcmeAccountCreated,
            actor: acmeActor({ id: newId, org_id: eab.org_id }, req),
            target: req.urls.caName,
            description: `ACME account ${newId} bound to EAB key ${eab.key_id}${contact.length ? `, contact ${contact.join(', ')}` : ''}`,
          },
          m,
        );
        return newId;
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error, ACCOUNT_KEY_UNIQUE)) throw malformed('An account for this key was created at the same time; retry');
        if (isUniqueViolation(error, EAB_KEY_UNIQUE)) throw unauthorized('This EAB key has already been used to create an account');
        throw error;
      });
    const account = (await this.repo.accountById(id))!;
    return created(accountView(account, req.urls), req.urls.account(id));
  }

  /** POST to the account URL: read (POST-as-GET), change contact, or deactivate. */
  async update(req: AcmeHttpRequest, id: number): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'kid');
    const account = own(v.account!, id);
    if (v.jws.payloadText === '') return ok(accountView(account, req.urls));
    const payload = jsonPayload(v.jws);
    if (payload.status !== undefined && payload.status !== 'deactivated') throw malformed('An account can only be set to status "deactivated"');
    const contact = payload.contact === undefined ? undefined : parseContact(payload.contact);
    await this.dataSource.transaction(async (m) => {
      await this.repo.updateAccount(m, id, { status: payload.status === 'deactivated' ? 'deactivated' : undefined, contact });
      if (payload.status === 'deactivated') {
        await this.repo.cancelPendingWork(m, id);
        await this.audit.record(
          { category: 'Pki', operation: AuditOperation.AcmeAccountDeactivated, actor: acmeActor(account, req), target: req.urls.caName, description: `ACME account ${id} deactivated` },
          m,
        );
      }
    });
    return ok(accountView((await this.repo.accountById(id))!, req.urls));
  }

  async orders(req: AcmeHttpRequest, id: number): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'kid');
    own(v.account!, id);
    return ok({ orders: (await this.repo.orderIds(id)).map((o) => req.urls.order(o)) });
  }

  /** RFC 8555 §7.3.5: the outer JWS by the old key (kid), the inner by the new key (jwk). */
  async keyChange(req: AcmeHttpRequest): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'kid');
    const account = v.account!;
    const inner = parseJws(jsonPayload(v.jws));
    const newJwk = headerJwk(inner);
    if (!newJwk || inner.protected.kid !== undefined) throw malformed('The inner JWS of key-change must carry the new key as jwk');
    if (inner.protected.nonce !== undefined) throw malformed('The inner JWS of key-change must not carry a nonce');
    if (inner.protected.url !== req.url) throw malformed('The inner JWS url must equal the outer one');
    verifyJws(inner, keyFromJwk(newJwk));
    const body = jsonPayload(inner);
    if (body.account !== req.urls.account(account.id)) throw unauthorized('The inner payload names another account');
    if (!body.oldKey || typeof body.oldKey !== 'object' || thumbprint(body.oldKey as Jwk) !== account.thumbprint) {
      throw unauthorized('The inner payload oldKey is not the account key');
    }
    const newThumbprint = thumbprint(newJwk);
    const holder = await this.repo.accountByThumbprint(newThumbprint);
    if (holder) return { status: 409, body: problemBody('The new key already belongs to an account'), contentType: 'application/problem+json', location: req.urls.account(holder.id) };
    await this.dataSource.transaction(async (m) => {
      await this.repo.updateAccount(m, account.id, { thumbprint: newThumbprint, jwk: newJwk });
      await this.audit.record(
        { category: 'Pki', operation: AuditOperation.AcmeAccountKeyChanged, actor: acmeActor(account, req), target: req.urls.caName, description: `ACME account ${account.id} key replaced` },
        m,
      );
    });
    return ok(accountView((await this.repo.accountById(account.id))!, req.urls));
  }

  /** RFC 8555 §7.3.4: an HMAC JWS over the account key, by a key this server issued for this CA. */
  private async checkBinding(req: AcmeHttpRequest, binding: unknown, jwk: Jwk, caId: number) {
    if (binding === undefined) {
      throw new AcmeProblem('externalAccountRequired', 'This server needs an External Account Binding key; ask an administrator for one (createAcmeEabKey)');
    }
    const eabJws = parseJws(binding);
    if (eabJws.protected.url !== req.url) throw malformed('The externalAccountBinding url must be the new-account URL');
    const keyId = eabJws.protected.kid;
    const key = typeof keyId === 'string' ? await this.repo.eabKey(keyId) : undefined;
    if (!key || key.ca_id !== caId) throw unauthorized('The externalAccountBinding kid is not an EAB key of this CA');
    if (key.used) throw unauthorized('This EAB key has already been used to create an account');
    verifyHmacJws(eabJws, await this.keyring.open(key.hmac_key, EAB_KEY_CONTEXT));
    let bound: unknown;
    try {
      bound = JSON.parse(eabJws.payloadText);
    } catch {
      throw malformed('The externalAccountBinding payload must be the account JWK');
    }
    if (!bound || typeof bound !== 'object' || thumbprint(bound as Jwk) !== thumbprint(jwk)) {
      throw malformed('The externalAccountBinding payload is not the account key');
    }
    return { ...key, key_id: keyId as string };
  }
}

function own(account: AccountRow, id: number): AccountRow {
  if (account.id !== id) throw unauthorized('The request is signed by another account');
  return account;
}

function parseContact(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((c) => typeof c === 'string')) throw malformed('contact must be an array of URLs');
  for (const c of value as string[]) {
    if (!/^mailto:[^@\s,]+@[^@\s,]+$/i.test(c)) throw new AcmeProblem('unsupportedContact', `Only mailto: contacts with one address are supported, not ${c}`);
  }
  return value as string[];
}

function problemBody(detail: string) {
  return new AcmeProblem('malformed', detail, 409).toDocument();
}
