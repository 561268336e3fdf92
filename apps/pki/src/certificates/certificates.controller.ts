import { Controller, Delete, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, reply, TextReply, UploadedPart } from '@app/http';
import { SecretPath } from '@app/gate';
import {
  AddCertificateDto, AdditionalFieldsDto, CertificateBookkeepingService, CertificateDetailsUpdateDto, CertificateExportService, CertificateListDto,
  CertificateRequestDto, CertificateSelectorDto, CertificatesService, certReplies, DeleteCertificateDto, NotificationEmailDto, detailsRecord,
  GetCertificateDto, RevocationService, RevokeCertificateDto,
} from '@app/pki/cert-service';

/** docs/api/pki.md. */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class CertificatesController {
  constructor(
    private readonly certs: CertificatesService,
    private readonly exports: CertificateExportService,
    private readonly revocations: RevocationService,
    private readonly bookkeeping: CertificateBookkeepingService,
  ) {}

  @Get('getCertificate')
  @Operation('GetCertificate', Permission.PkiRead)
  @SecretPath('export')
  download(@CurrentActor() actor: Actor, @Input(GetCertificateDto) dto: GetCertificateDto) {
    return this.exports.download(actor, dto);
  }

  @Get('getAllSSLCertificates')
  @Operation('GetAllSSLCertificates', Permission.PkiRead)
  async list(@CurrentActor() actor: Actor, @Input(CertificateListDto) dto: CertificateListDto) {
    return certReplies.list(await this.certs.list(actor, dto));
  }

  @Get('getAllSSLCertsExpiryDate')
  @Operation('GetAllSSLCertificatesExpiryDate', Permission.PkiRead)
  async expiry(@CurrentActor() actor: Actor) {
    return certReplies.expiry(await this.certs.expiryList(actor));
  }

  @Get('getCertificateDetails')
  @Operation('GetCertificateDetails', Permission.PkiRead)
  async details(@CurrentActor() actor: Actor, @Input(CertificateSelectorDto) dto: CertificateSelectorDto) {
    return certReplies.details([detailsRecord(await this.certs.view(actor, dto))]);
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
    return certReplies.passphrase(await this.exports.passphrase(actor, dto), true);
  }

  @Delete('deleteCertificate')
  @Operation('DeleteCertificate', Permission.PkiManage)
  async delete(@CurrentActor() actor: Actor, @Input(DeleteCertificateDto) dto: DeleteCertificateDto) {
    return certReplies.deleted(await this.certs.delete(actor, dto));
  }

  @Post('createCertificate')
  @Operation('CreateCertificate', Permission.PkiManage)
  async create(@CurrentActor() actor: Actor, @Input(CertificateRequestDto) dto: CertificateRequestDto) {
    return certReplies.created(await this.certs.createSelfSigned(actor, dto));
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

  @Post('revokeENTCACertificate')
  @Operation('RevokeENTCACertificate', Permission.PkiManage)
  async revoke(@CurrentActor() actor: Actor, @Input(RevokeCertificateDto) dto: RevokeCertificateDto) {
    return new TextReply(await this.revocations.revoke(actor, dto));
  }

  /** KMP K4: the same revocation as revokeENTCACertificate, answered in JSON. */
  @Post('revokeMSCACertificate')
  @Operation('RevokeMSCACertificate', Permission.PkiManage)
  async revokeAsMsca(@CurrentActor() actor: Actor, @Input(RevokeCertificateDto) dto: RevokeCertificateDto) {
    return reply(await this.revocations.revokeAsMsca(actor, dto));
  }

  /** KMP K1: bookkeeping only; the name is KMP's (lower-case, abbreviated). */
  @Post('updateSSLCertificateDetails')
  @Operation('updateSslDetails', Permission.PkiManage)
  async updateDetails(@CurrentActor() actor: Actor, @Input(CertificateDetailsUpdateDto) dto: CertificateDetailsUpdateDto) {
    return certReplies.detailsUpdated(await this.bookkeeping.updateDetails(actor, dto));
  }

  /** KMP K2. */
  @Post('updateSSLAdditionalFields')
  @Operation('updateSSLAdditionalFields', Permission.PkiManage)
  async updateAdditionalFields(@CurrentActor() actor: Actor, @Input(AdditionalFieldsDto) dto: AdditionalFieldsDto) {
    return certReplies.additionalFieldsUpdated(await this.bookkeeping.updateAdditionalFields(actor, dto));
  }
}
