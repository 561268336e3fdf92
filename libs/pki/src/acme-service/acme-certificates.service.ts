import { Injectable } from '@nestjs/common';
import { createPublicKey, KeyObject } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppError, ErrorCode } from '@app/http';
import { AcmeProblem, csrIdentifiers, jsonPayload, keyFromJwk, malformed, notFound, sameIdentifiers, unauthorized } from '../acme';
import { buildNameDer, certificateDetails, ParsedCsr, parseCsr, validityPeriod } from '../certs';
import { CertificateAuthoritiesService, RevocationService, SigningService } from '../cert-service';
import { acmeActor } from './acme-actor';
import { AccountRow, AcmeRepository, OrderRow } from './acme.repository';
import { AcmeReply, ok } from './acme-reply';
import { AcmeHttpRequest, AcmeVerifier } from './acme-verifier';
import { AcmeOrdersService } from './acme-orders.service';

/** Validity of ACME certificates (the CA cuts it to its own notAfter). */
export const ACME_VALIDITY_DAYS = 90;
// RFC 5280 reasons a subscriber may give (as Let's Encrypt allows).
const REVOCATION_REASONS = [0, 1, 3, 4, 5];

/** Finalisation through the CA's one signing path, certificate download, revocation. */
@Injectable()
export class AcmeCertificatesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repo: AcmeRepository,
    private readonly verifier: AcmeVerifier,
    private readonly orders: AcmeOrdersService,
    private readonly cas: CertificateAuthoritiesService,
    private readonly signing: SigningService,
    private readonly revocation: RevocationService,
  ) {}

  async finalize(req: AcmeHttpRequest, id: number): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'kid');
    const account = v.account!;
    const order = await this.repo.order(account.id, id);
    if (!order) throw notFound('order');
    if (order.status !== 'ready') throw new AcmeProblem('orderNotReady', `The order is ${order.status}, not ready`);
    if (new Date(order.expires) < new Date()) throw new AcmeProblem('orderNotReady', 'The order has expired; place a new one');
    const csr = await readCsr(jsonPayload(v.jws).csr, account);
    if (!sameIdentifiers(csrIdentifiers(csr.details.commonName, csr.sanEntries), order.identifiers)) {
      throw new AcmeProblem('badCSR', `The CSR must name exactly the order's identifiers: ${order.identifiers.map((i) => i.value).join(', ')}`);
    }
    if (!(await this.repo.moveOrder(this.dataSource.manager, id, ['ready'], 'processing'))) {
      throw new AcmeProblem('orderNotReady', 'The order is being finalised by another request');
    }
    try {
      await this.issue(req, account, order, csr);
    } catch (error) {
      const problem = error instanceof AcmeProblem ? error : new AcmeProblem('serverInternal', 'The certificate could not be issued');
      await this.repo.moveOrder(this.dataSource.manager, id, ['processing'], 'invalid', { error: problem.toDocument() });
      throw error;
    }
    return ok(await this.orders.orderBody(account.id, id, req), { location: req.urls.order(id) });
  }

  private async issue(req: AcmeHttpRequest, account: AccountRow, order: OrderRow, csr: ParsedCsr): Promise<void> {
    // The CA of the account's EAB key, looked up in the account's organisation: its own CA or a
    // server-wide one, never another organisation's nor the internal service CA.
    const caRow = await this.cas.findUsableById(account.org_id, account.ca_id).catch((error: unknown) => {
      if (error instanceof AppError) throw unauthorized('The certificate authority of this ACME account may not be used by its organisation');
      throw error;
    });
    const commonName = csr.details.commonName || (order.identifiers.find((i) => i.type === 'dns') ?? order.identifiers[0]).value;
    // The organisation's list may have shrunk since the order was placed.
    const refused = (error: unknown) => {
      if (error instanceof AppError && error.code === ErrorCode.Forbidden) throw new AcmeProblem('rejectedIdentifier', error.message);
      throw error;
    };
    const issuing = this.signing.issue(acmeActor(account, req), {
      caRow,
      // The CA decides the subject: the common name only, and exactly the validated names.
      parsed: { ...csr, subjectDer: buildNameDer({ commonName }), sanEntries: order.identifiers.map((i) => ({ type: i.type, value: i.value })) },
      validity: validityPeriod(ACME_VALIDITY_DAYS, 'days'),
      template: account.template,
      source: 'acme',
      description: `ACME order ${order.id} of account ${account.id} signed by ${caRow.name}`,
      inTransaction: async (m, certificateId) => {
        await this.repo.moveOrder(m, order.id, ['processing'], 'valid', { certificateId });
      },
    });
    await issuing.catch(refused);
  }

  /** POST-as-GET: the certificate and its chain, PEM (RFC 8555 §7.4.2). */
  async download(req: AcmeHttpRequest, orderId: number): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'kid');
    const order = await this.repo.order(v.account!.id, orderId);
    const cert = order?.certificate_id ? await this.repo.certificatePem(v.account!.id, order.certificate_id) : undefined;
    if (!cert) throw notFound('certificate');
    return { status: 200, body: cert.certificate_pem + cert.chain_pem, contentType: 'application/pem-certificate-chain' };
  }

  /** RFC 8555 §7.6: by the account that ordered it (kid) or by the certificate's own key (jwk). */
  async revoke(req: AcmeHttpRequest): Promise<AcmeReply> {
    const v = await this.verifier.verify(req, 'either');
    const payload = jsonPayload(v.jws);
    if (typeof payload.certificate !== 'string') throw malformed('certificate (base64url DER) is required');
    let details;
    try {
      details = certificateDetails(Buffer.from(payload.certificate, 'base64url'));
    } catch {
      throw malformed('certificate is not a DER certificate');
    }
    const reason = payload.reason === undefined ? 0 : payload.reason;
    if (typeof reason !== 'number' || !REVOCATION_REASONS.includes(reason)) {
      throw new AcmeProblem('badRevocationReason', `reason must be one of ${REVOCATION_REASONS.join(', ')}`);
    }
    const found = await this.repo.certificateByFingerprint(details.fingerprintSha256);
    if (!found || found.ca_id !== v.caId) throw new AcmeProblem('malformed', 'This certificate was not issued by this ACME server', 404);
    if (!(await this.mayRevoke(v.account, v.key, found, details.pem))) {
      throw unauthorized('Only the account that ordered the certificate, an account of its organisation holding authorizations for all its names, or its key holder may revoke it');
    }
    const actor = acmeActor({ id: v.account?.id ?? 0, org_id: found.org_id }, req);
    try {
      await this.revocation.revoke(actor, { common_name: found.common_name, serial_number: found.serial_number, revoke_reason: reason });
    } catch (error) {
      if (error instanceof AppError && /already revoked/.test(error.message)) throw new AcmeProblem('alreadyRevoked', 'The certificate is already revoked');
      throw error;
    }
    return { status: 200 };
  }

  private async mayRevoke(account: AccountRow | undefined, key: KeyObject, cert: { org_id: number; sans: string[]; account_ids: number[] }, pem: string): Promise<boolean> {
    if (!account) return sameKey(key, pem);
    if (cert.account_ids.includes(account.id)) return true;
    return account.org_id === cert.org_id && (await this.repo.holdsAuthorizations(account.id, cert.sans));
  }
}

async function readCsr(value: unknown, account: AccountRow): Promise<ParsedCsr> {
  if (typeof value !== 'string') throw new AcmeProblem('badCSR', 'csr (base64url DER) is required');
  let csr: ParsedCsr;
  try {
    csr = await parseCsr(Buffer.from(value, 'base64url'));
  } catch (error) {
    throw new AcmeProblem('badCSR', `The CSR could not be read: ${(error as Error).message}`);
  }
  if (sameKey(keyFromJwk(account.jwk), csr.publicKey)) throw new AcmeProblem('badCSR', 'The certificate key must not be the account key');
  return csr;
}

function sameKey(a: KeyObject, b: KeyObject | string): boolean {
  const other = typeof b === 'string' ? createPublicKey(b) : b;
  return a.export({ type: 'spki', format: 'der' }).equals(other.export({ type: 'spki', format: 'der' }));
}
