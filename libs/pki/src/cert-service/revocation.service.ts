import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError } from '@app/http';
import { REMOVE_FROM_CRL, REVOCATION_REASONS } from '../certs';
import { AuthorityRepository } from './authority.repository';
import { CertificateRepository } from './certificate.repository';
import { RevokeCertificateDto } from './certificate.dto';
import { CertificatesService } from './certificates.service';
import { CrlService } from './crl.service';

const CERTIFICATE_HOLD = 6;

/**
 * revokeENTCACertificate: marks a certificate one of our CAs issued as revoked and
 * re-publishes that CA's CRL in the same transaction. Reason 6 (hold) can later be
 * lifted with reason 7 (remove from CRL) or made final with another reason.
 */
@Injectable()
export class RevocationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly inventory: CertificatesService,
    private readonly certificates: CertificateRepository,
    private readonly authorities: AuthorityRepository,
    private readonly crls: CrlService,
    private readonly audit: AuditWriter,
  ) {}

  /** revokeENTCACertificate (p43): the answer is plain text. */
  async revoke(actor: Actor, dto: RevokeCertificateDto): Promise<string> {
    const done = await this.apply(actor, dto);
    return done.removed
      ? `${done.label} has been removed from the CRL. Reason: ${done.reasonText}.`
      : `${done.label} has been revoked. Reason: ${done.reasonText}.`;
  }

  /**
   * revokeMSCACertificate (KMP K4): the same revocation (our CAs stand in for the Microsoft
   * CA, as signCSR's MSCA does), answered in the JSON envelope.
   */
  async revokeAsMsca(actor: Actor, dto: RevokeCertificateDto): Promise<string> {
    const done = await this.apply(actor, dto);
    const reason = REVOCATION_REASONS[dto.revoke_reason];
    return done.removed
      ? `Certificate ${done.commonName} removed from the CRL successfully with reason ${reason}.`
      : `Certificate ${done.commonName} revoked successfully with reason ${reason}.`;
  }

  private async apply(actor: Actor, dto: RevokeCertificateDto): Promise<{ label: string; commonName: string; reasonText: string; removed: boolean }> {
    const found = await this.inventory.find(actor.orgId, dto);
    const label = `Certificate ${found.common_name} (serial number ${found.serial_number})`;
    if (found.ca_id === null) throw AppError.invalid(`${label} was not issued by a certificate authority of this server and cannot be revoked here`);
    const reason = dto.revoke_reason;
    const reasonText = `${REVOCATION_REASONS[reason]} (${reason})`;
    await this.dataSource.transaction(async (m) => {
      await this.certificates.lock(m, actor.orgId, found.id);
      const row = (await this.certificates.findById(actor.orgId, found.id, m))!;
      const onHold = row.revoked_at !== null && row.revoke_reason === CERTIFICATE_HOLD;
      if (reason === REMOVE_FROM_CRL) {
        if (!onHold) throw AppError.invalid(`${label} is not on hold; only a certificate on hold (reason 6) can be removed from the CRL`);
        await this.certificates.setRevocation(m, actor.orgId, row.id, null, null);
      } else {
        if (row.revoked_at !== null && !onHold) throw AppError.conflict(`${label} is already revoked`);
        await this.certificates.setRevocation(m, actor.orgId, row.id, row.revoked_at ?? new Date(), reason);
      }
      const ca = await this.authorities.findVisibleById(actor.orgId, row.ca_id!, m);
      if (ca) await this.crls.publish(m, ca);
      await this.audit.record(
        { category: 'Pki', operation: AuditOperation.CertificateRevoked, actor, target: row.common_name, reason: reasonText, description: `serial ${row.serial_number}` },
        m,
      );
    });
    return { label, commonName: found.common_name, reasonText, removed: reason === REMOVE_FROM_CRL };
  }
}
