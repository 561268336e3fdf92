import { Injectable } from '@nestjs/common';
import { Actor } from '@app/audit';
import { PkiSecretGate, PkiSecretKind, pkiSecretTarget } from '@app/gate';
import { AppError, FileReply } from '@app/http';
import { exportCertificate, ExportFormat, readCertificatePems, resolveExportFormat } from '../certs';
import { fileNameFor } from './cert-format';
import { mapCertErrors } from './cert-errors';
import { CertificateSelectorDto, GetCertificateDto } from './certificate.dto';
import { CertificateRepository, CertificateRow } from './certificate.repository';
import { CertificateSecrets, OpenedSecrets } from './certificate-secrets';
import { CertificatesService, certificateNotFound, parseSerial } from './certificates.service';

const KEY_FORMATS: readonly ExportFormat[] = ['PKCS', 'JKS', 'KEY'];

/** Downloads: getCertificate in every fileType, getCertificateKeyStore, getCertificatePassphrase. */
@Injectable()
export class CertificateExportService {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly inventory: CertificateRepository,
    private readonly secrets: CertificateSecrets,
    private readonly gate: PkiSecretGate,
  ) {}

  /**
   * getCertificate: PEM (certificate and chain) unless fileType says otherwise. Formats
   * that carry the private key need the manage permission, use the stored key password,
   * and are audited.
   */
  async download(actor: Actor, dto: GetCertificateDto): Promise<FileReply> {
    const format = await mapCertErrors(() => resolveExportFormat(dto.fileType?.trim() || 'PEM'));
    if (KEY_FORMATS.includes(format)) {
      return this.withSecrets(actor, dto, 'certificate-key', `fileType ${format}`, async (row, secrets) =>
        this.file(row, format, await this.secrets.requireKeyOf(row, secrets)),
      );
    }
    return this.file(await this.certificates.find(actor.orgId, dto), format, {});
  }

  /** getCertificateKeyStore: the key and chain in the certificate's store type (JKS or PKCS#12). */
  async keyStore(actor: Actor, selector: CertificateSelectorDto): Promise<FileReply> {
    return this.withSecrets(actor, selector, 'certificate-keystore', 'keystore', async (row, secrets) =>
      this.file(row, row.store_type === 'JKS' ? 'JKS' : 'PKCS', await this.secrets.requireKeyOf(row, secrets)),
    );
  }

  /** getCertificatePassphrase: the password protecting the stored key and its keystores. */
  async passphrase(actor: Actor, selector: CertificateSelectorDto): Promise<{ commonName: string; passphrase: string }> {
    return this.withSecrets(actor, selector, 'certificate-passphrase', 'passphrase', async (row, secrets) => {
      if (!secrets.password) throw AppError.notFound(`Certificate ${row.common_name} has no private key passphrase on this server`);
      return { commonName: row.common_name, passphrase: secrets.password };
    });
  }

  /**
   * The gate decides (and audits) before the secrets are opened; a failure afterwards (no key
   * held, an export error) rolls the grant row back with the transaction: nothing was released.
   */
  private async withSecrets<T>(
    actor: Actor,
    selector: CertificateSelectorDto,
    kind: PkiSecretKind,
    what: string,
    use: (row: CertificateRow, secrets: OpenedSecrets) => Promise<T>,
  ): Promise<T> {
    const serial = parseSerial(selector);
    const row = await this.inventory.pick(actor.orgId, selector.common_name, serial);
    const target = pkiSecretTarget(kind, selector.common_name, row && { ...row, name: row.common_name }, {
      notFound: certificateNotFound(selector, serial),
      detail: row ? `${what}, serial ${row.serial_number}` : what,
    });
    return this.gate.release(actor, target, async (m) => use(row!, await this.secrets.open(row!, m)));
  }

  private async file(row: CertificateRow, format: ExportFormat, secrets: OpenedSecrets): Promise<FileReply> {
    const file = await mapCertErrors(() => exportCertificate(format, { certPem: row.certificate_pem, chainPems: chainOf(row), ...secrets }));
    return new FileReply(file.body, fileNameFor(row.common_name, file.fileSuffix), file.contentType);
  }
}

export function chainOf(row: CertificateRow): string[] {
  return row.chain_pem ? readCertificatePems(row.chain_pem) : [];
}

/** docs/api/pki.md: the passphrase is the last space-separated word of the message. */
export function passphraseMessage(commonName: string, passphrase: string): string {
  return `Private key passphrase of certificate ${commonName} is ${passphrase}`;
}
