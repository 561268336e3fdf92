import { Controller, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, reply, TextReply } from '@app/http';
import { certificateOperations, PKI_PRESENTATION, RevocationService, RevokeCertificateDto } from '@app/pki/cert-service';

/** The certificate operations both ports serve, as this port presents them (docs/api/pki.md). */
export const PkiCertificateOperations = certificateOperations(PKI_PRESENTATION);

/** Revocation, which only the key manager serves (docs/api/pki.md). */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class CertificatesController {
  constructor(private readonly revocations: RevocationService) {}

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
}
