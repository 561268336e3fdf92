import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError } from '@app/http';
import { parseFieldData, resolveFieldValues } from './additional-fields';
import { fieldDefinitions, setFieldValues } from './additional-fields.repository';
import { AdditionalFieldsDto, CertificateDetailsUpdateDto } from './bookkeeping.dto';
import { CertificateRepository, CertificateRow } from './certificate.repository';
import { CertificatesService } from './certificates.service';
import { notificationEmails } from './notification-email';

/**
 * KMP's updateSSLCertificateDetails and updateSSLAdditionalFields: what the organisation
 * records about a certificate (description, host name, expiry-notice recipients, automatic
 * deployment, additional fields), never the certificate itself. Everything is checked before
 * anything is written; one audit row per update names what changed.
 */
@Injectable()
export class CertificateBookkeepingService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly inventory: CertificatesService,
    private readonly certificates: CertificateRepository,
    private readonly audit: AuditWriter,
  ) {}

  async updateDetails(actor: Actor, dto: CertificateDetailsUpdateDto): Promise<string> {
    const email = dto.email_address === undefined ? undefined : notificationEmails(dto.email_address, 'email_address');
    const values = dto.sslAdditionalFieldData ? parseFieldData(dto.sslAdditionalFieldData) : [];
    const row = await this.inventory.find(actor.orgId, dto);
    const changed = [
      dto.description !== undefined && 'description',
      dto.dns_name !== undefined && 'dns_name',
      email !== undefined && 'email_address',
      dto.isAutoDeploy !== undefined && `isAutoDeploy ${dto.isAutoDeploy}`,
    ].filter((c): c is string => Boolean(c));
    if (changed.length === 0 && values.length === 0) {
      throw AppError.invalid('Nothing to update: give description, dns_name, email_address, isAutoDeploy or sslAdditionalFieldData');
    }
    await this.dataSource.transaction(async (m) => {
      await this.certificates.lock(m, actor.orgId, row.id);
      await this.certificates.setBookkeeping(m, actor.orgId, row.id, { description: dto.description, dnsName: dto.dns_name, autoDeploy: dto.isAutoDeploy });
      if (email !== undefined) await this.certificates.setNotificationEmail(m, actor.orgId, row.id, email);
      const fields = await this.applyFields(m, actor, row, values);
      await this.record(m, actor, row, [...changed, ...fields]);
    });
    return row.common_name;
  }

  async updateAdditionalFields(actor: Actor, dto: AdditionalFieldsDto): Promise<string> {
    if (!dto.sslAdditionalFieldData?.length) throw AppError.invalid('sslAdditionalFieldData is required: a list of {ADDITIONALFIELDNAME, ADDITIONALFIELDVALUE}');
    const values = parseFieldData(dto.sslAdditionalFieldData);
    const row = await this.inventory.find(actor.orgId, dto);
    await this.dataSource.transaction(async (m) => {
      await this.certificates.lock(m, actor.orgId, row.id);
      await this.record(m, actor, row, await this.applyFields(m, actor, row, values));
    });
    return row.common_name;
  }

  /** Refuses an unknown field or a value outside a drop-down before anything is written; names what it set. */
  private async applyFields(m: EntityManager, actor: Actor, row: CertificateRow, values: ReturnType<typeof parseFieldData>): Promise<string[]> {
    if (values.length === 0) return [];
    const resolved = resolveFieldValues(await fieldDefinitions(m, actor.orgId), values);
    await setFieldValues(m, row.id, resolved);
    return resolved.map(({ field, value }) => `${field.name}=${value === '' ? '(cleared)' : value.length > 100 ? `${value.slice(0, 100)}...` : value}`);
  }

  private record(m: EntityManager, actor: Actor, row: CertificateRow, changed: string[]) {
    return this.audit.record(
      { category: 'Pki', operation: AuditOperation.CertificateDetailsUpdated, actor, target: row.common_name, description: `serial ${row.serial_number}: ${changed.join(', ')}` },
      m,
    );
  }
}
