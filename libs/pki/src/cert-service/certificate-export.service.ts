import { Injectable } from '@nestjs/common';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Permission, roleHas } from '@app/auth';
import { AppError, FileReply } from '@app/http';
import { exportCertificate, ExportFormat, readCertificatePems, resolveExportFormat } from '../certs';
import { fileNameFor } from './cert-format';
import { mapCertErrors } from './cert-errors';
import { CertificateSelectorDto, GetCertificateDto } from './certificate.dto';
import { CertificateRow } from './certificate.repository';
import { CertificateSecrets } from './certificate-secrets';
import { CertificatesService } from './certificates.service';

const KEY_FORMATS: readonly ExportFormat[] = ['PKCS', 'JKS', 'KEY'];

/** Downloads: getCertificate in every fileType, getCertificateKeyStore, getCertificatePassphrase. */
@Injectable()
export class CertificateExportService {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly secrets: CertificateSecrets,
    private readonly audit: AuditWriter,
  ) {}

  /**
   * getCertificate: PEM (certificate and chain) unless fileType says otherwise. Formats
   * that carry the private key need the manage permission, use the stored key password,
   * and are audited.
   */
  async download(actor: Actor, dto: GetCertificateDto): Promise<FileReply> {
    const format = await mapCertErrors(() => resolveExportFormat(dto.fileType?.trim() || 'PEM'));
    const withKey = KEY_FORMATS.includes(format);
    if (withKey && !roleHas(actor.role, Permission.PkiManage)) {
      throw AppError.forbidden(`fileType ${format} exports the private key, which your role may not do`);
    }
    const row = await this.certificates.find(actor.orgId, dto);
    const secrets = withKey ? await this.secrets.requireKey(row) : {};
    const file = await mapCertErrors(() =>
      exportCertificate(format, { certPem: row.certificate_pem, chainPems: chainOf(row), ...secrets }),
    );
    if (withKey) await this.recordExport(actor, row, `fileType ${format}`);
    return new FileReply(file.body, fileNameFor(row.common_name, file.fileSuffix), file.contentType);
  }

  /** getCertificateKeyStore: the key and chain in the certificate's store type (JKS or PKCS#12). */
  async keyStore(actor: Actor, selector: CertificateSelectorDto): Promise<FileReply> {
    const row = await this.certificates.find(actor.orgId, selector);
    const secrets = await this.secrets.requireKey(row);
    const format: ExportFormat = row.store_type === 'JKS' ? 'JKS' : 'PKCS';
    const file = await mapCertErrors(() =>
      exportCertificate(format, { certPem: row.certificate_pem, chainPems: chainOf(row), ...secrets }),
    );
    await this.recordExport(actor, row, `keystore ${row.store_type}`);
    return new FileReply(file.body, fileNameFor(row.common_name, file.fileSuffix), file.contentType);
  }

  /** getCertificatePassphrase: the password protecting the stored key and its keystores. */
  async passphrase(actor: Actor, selector: CertificateSelectorDto): Promise<{ commonName: string; passphrase: string }> {
    const row = await this.certificates.find(actor.orgId, selector);
    const { password } = await this.secrets.open(row);
    if (!password) throw AppError.notFound(`Certificate ${row.common_name} has no private key passphrase on this server`);
    await this.audit.record({
      category: 'Pki',
      operation: AuditOperation.CertificatePassphraseRetrieved,
      actor,
      target: row.common_name,
      description: `serial ${row.serial_number}`,
    });
    return { commonName: row.common_name, passphrase: password };
  }

  private async recordExport(actor: Actor, row: CertificateRow, what: string): Promise<void> {
    await this.audit.record({
      category: 'Pki',
      operation: AuditOperation.CertificateExported,
      actor,
      target: row.common_name,
      description: `${what}, serial ${row.serial_number}`,
    });
  }
}

export function chainOf(row: CertificateRow): string[] {
  return row.chain_pem ? readCertificatePems(row.chain_pem) : [];
}

/** COMPAT.md §6: the passphrase is the last space-separated word of the message. */
export function passphraseMessage(commonName: string, passphrase: string): string {
  return `Private key passphrase of certificate ${commonName} is ${passphrase}`;
}
