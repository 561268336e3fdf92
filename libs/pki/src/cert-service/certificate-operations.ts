import { Controller, Delete, Get, Post, Type } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { SecretPath } from '@app/gate';
import { ApiLayout, Input, Layout, Operation, Reply, UploadedPart } from '@app/http';
import { AdditionalFieldsDto, CertificateDetailsUpdateDto, DeleteCertificateDto } from './bookkeeping.dto';
import { certReplies } from './cert-replies';
import { CertificateBookkeepingService } from './certificate-bookkeeping.service';
import { CertificateExportService } from './certificate-export.service';
import { CertificateView, detailsRecord, endpointRecord } from './certificate-view';
import { AddCertificateDto, CertificateListDto, CertificateRequestDto, CertificateSelectorDto, GetCertificateDto, NotificationEmailDto } from './certificate.dto';
import { CertificatesService } from './certificates.service';

/**
 * How one port presents the certificate operations both serve. Each difference is decided
 * here, with the clients that need it; everything else is the same code on both ports.
 */
export interface CertificatePresentation {
  layout: Layout;
  /** The list's key: PAM360's prefix-B clients read `SSLCertificates`; KMP's answer has none. */
  listKey?: string;
  /** Likewise for the expiry list (`SSLCertificates_Expiry_Date` on the vault). */
  expiryKey?: string;
  /** The vault's prefix B answers details as `endpoint` (op 34); KMP's as `details`, a list of one. */
  detailsKey?: string;
  details(view: CertificateView): Reply;
  /** KMP's getCertificatePassphrase also answers `Passphrase` in details; the vault's prefix B, the message only (op 38). */
  passphraseInDetails: boolean;
}

export const PKI_PRESENTATION: CertificatePresentation = {
  layout: 'pki',
  details: (view) => certReplies.details([detailsRecord(view)]),
  passphraseInDetails: true,
};

export const VAULT_PRESENTATION: CertificatePresentation = {
  layout: 'vaultB',
  listKey: 'SSLCertificates',
  expiryKey: 'SSLCertificates_Expiry_Date',
  detailsKey: 'endpoint',
  details: (view) => certReplies.details(endpointRecord(view)),
  passphraseInDetails: false,
};

/**
 * The certificate operations served on both ports (pki: docs/api/pki.md; the vault's prefix
 * B: docs/api/vault.md), declared once: each app mounts the controller made for its
 * presentation, and adds the operations only it serves in a controller of its own.
 */
export function certificateOperations(p: CertificatePresentation): Type<unknown> {
  @ApiLayout(p.layout)
  @Controller('api/pki/restapi')
  class CertificateOperations {
    constructor(
      readonly certs: CertificatesService,
      readonly exports: CertificateExportService,
      readonly bookkeeping: CertificateBookkeepingService,
    ) {}

    @Get('getCertificate')
    @Operation('GetCertificate', Permission.PkiRead)
    @SecretPath('export')
    download(@CurrentActor() actor: Actor, @Input(GetCertificateDto) dto: GetCertificateDto) {
      return this.exports.download(actor, dto);
    }

    @Get('getAllSSLCertificates')
    @Operation('GetAllSSLCertificates', Permission.PkiRead, { detailsKey: p.listKey })
    async list(@CurrentActor() actor: Actor, @Input(CertificateListDto) dto: CertificateListDto) {
      return certReplies.list(await this.certs.list(actor, dto));
    }

    @Get('getAllSSLCertsExpiryDate')
    @Operation('GetAllSSLCertificatesExpiryDate', Permission.PkiRead, { detailsKey: p.expiryKey })
    async expiry(@CurrentActor() actor: Actor) {
      return certReplies.expiry(await this.certs.expiryList(actor));
    }

    @Get('getCertificateDetails')
    @Operation('GetCertificateDetails', Permission.PkiRead, { detailsKey: p.detailsKey })
    async details(@CurrentActor() actor: Actor, @Input(CertificateSelectorDto) dto: CertificateSelectorDto) {
      return p.details(await this.certs.view(actor, dto));
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
      return certReplies.passphrase(await this.exports.passphrase(actor, dto), p.passphraseInDetails);
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
  return CertificateOperations;
}
