import { Controller, Delete, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, UploadedPart } from '@app/http';
import { SecretPath } from '@app/gate';
import {
  AddCertificateDto, AdditionalFieldsDto, CertificateBookkeepingService, CertificateDetailsUpdateDto, CertificateExportService, CertificateListDto,
  CertificateRequestDto, CertificateSelectorDto, CertificatesService, certReplies, DeleteCertificateDto, NotificationEmailDto, CsrService,
  endpointRecord, ExportCsrDto, GetCertificateDto, SignCsrDto, SigningService,
} from '@app/pki/cert-service';

/** The vault's certificate subset on prefix B (docs/api/vault.md, prefix B, and PAM360's signCSR), same domain as the pki service. */
@ApiLayout('vaultB')
@Controller('api/pki/restapi')
export class VaultCertificatesController {
  constructor(
    private readonly certs: CertificatesService,
    private readonly exports: CertificateExportService,
    private readonly csrs: CsrService,
    private readonly signing: SigningService,
    private readonly bookkeeping: CertificateBookkeepingService,
  ) {}

  @Get('getCertificate')
  @Operation('GetCertificate', Permission.PkiRead)
  @SecretPath('export')
  download(@CurrentActor() actor: Actor, @Input(GetCertificateDto) dto: GetCertificateDto) {
    return this.exports.download(actor, dto);
  }

  @Get('getAllSSLCertificates')
  @Operation('GetAllSSLCertificates', Permission.PkiRead, { detailsKey: 'SSLCertificates' })
  async list(@CurrentActor() actor: Actor, @Input(CertificateListDto) dto: CertificateListDto) {
    return certReplies.list(await this.certs.list(actor, dto));
  }

  @Get('getAllSSLCertsExpiryDate')
  @Operation('GetAllSSLCertificatesExpiryDate', Permission.PkiRead, { detailsKey: 'SSLCertificates_Expiry_Date' })
  async expiry(@CurrentActor() actor: Actor) {
    return certReplies.expiry(await this.certs.expiryList(actor));
  }

  @Get('getCertificateDetails')
  @Operation('GetCertificateDetails', Permission.PkiRead, { detailsKey: 'endpoint' })
  async details(@CurrentActor() actor: Actor, @Input(CertificateSelectorDto) dto: CertificateSelectorDto) {
    return certReplies.details(endpointRecord(await this.certs.view(actor, dto)));
  }

  @Get('getCertificateKeyStore')
  // A pki secret: PkiSecretGate decides (pki.manage, organisation) and audits, refusals included.
  @Operation('GetCertificateKeyStore', Permission.PkiRead)
  @SecretPath('export')
  keyStore(@CurrentActor() actor: Actor, @Input(CertificateSelectorDto) dto: CertificateSelectorDto) {
    return this.exports.keyStore(actor, dto);
  }

  @Get('getCertificatePassphrase')
  // A pki secret: PkiSecretGate decides (pki.manage, organisation) and audits, refusals included.
  @Operation('GetCertificatePassphrase', Permission.PkiRead)
  @SecretPath('export')
  async passphrase(@CurrentActor() actor: Actor, @Input(CertificateSelectorDto) dto: CertificateSelectorDto) {
    return certReplies.passphrase(await this.exports.passphrase(actor, dto), false);
  }

  @Post('setCertificateNotificationEmail')
  @Operation('SetCertificateNotificationEmail', Permission.PkiManage)
  async notificationEmail(@CurrentActor() actor: Actor, @Input(NotificationEmailDto) dto: NotificationEmailDto) {
    return certReplies.notificationEmail(await this.certs.setNotificationEmail(actor, dto));
  }

  @Post('addCertificate')
  @Operation('AddCertificate', Permission.PkiManage, { capitalResult: true })
  async add(@CurrentActor() actor: Actor, @Input(AddCertificateDto) dto: AddCertificateDto, @UploadedPart('File') file?: Express.Multer.File) {
    return certReplies.added(await this.certs.add(actor, dto, file?.buffer));
  }

  @Delete('deleteCertificate')
  @Operation('DeleteCertificate', Permission.PkiManage)
  async delete(@CurrentActor() actor: Actor, @Input(DeleteCertificateDto) dto: DeleteCertificateDto) {
    return certReplies.deleted(await this.certs.delete(actor, dto));
  }

  @Post('createCSR')
  @Operation('CreateCertificate', Permission.PkiManage)
  async createCsr(@CurrentActor() actor: Actor, @Input(CertificateRequestDto) dto: CertificateRequestDto) {
    return certReplies.csrCreated(await this.csrs.create(actor, dto));
  }

  @Post('createCertificate')
  @Operation('CreateCertificate', Permission.PkiManage)
  async create(@CurrentActor() actor: Actor, @Input(CertificateRequestDto) dto: CertificateRequestDto) {
    return certReplies.created(await this.certs.createSelfSigned(actor, dto));
  }

  /** KMP K3, as on the key manager. */
  @Get('exportCSR')
  @Operation('ExportCSR', Permission.PkiRead)
  @SecretPath('export')
  exportCsr(@CurrentActor() actor: Actor, @Input(ExportCsrDto) dto: ExportCsrDto) {
    return this.csrs.export(actor, dto);
  }

  /** KMP K1, as on the key manager. */
  @Post('updateSSLCertificateDetails')
  @Operation('updateSslDetails', Permission.PkiManage)
  async updateDetails(@CurrentActor() actor: Actor, @Input(CertificateDetailsUpdateDto) dto: CertificateDetailsUpdateDto) {
    return certReplies.detailsUpdated(await this.bookkeeping.updateDetails(actor, dto));
  }

  /** KMP K2, as on the key manager. */
  @Post('updateSSLAdditionalFields')
  @Operation('updateSSLAdditionalFields', Permission.PkiManage)
  async updateAdditionalFields(@CurrentActor() actor: Actor, @Input(AdditionalFieldsDto) dto: AdditionalFieldsDto) {
    return certReplies.additionalFieldsUpdated(await this.bookkeeping.updateAdditionalFields(actor, dto));
  }

  @Post('signCSR')
  @Operation('SignCSR', Permission.PkiManage)
  async sign(@CurrentActor() actor: Actor, @Input(SignCsrDto) dto: SignCsrDto) {
    return certReplies.signed(await this.signing.sign(actor, dto));
  }
}
