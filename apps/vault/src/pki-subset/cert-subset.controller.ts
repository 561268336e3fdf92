import { Controller, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { SecretPath } from '@app/gate';
import { certificateOperations, certReplies, CertificateRequestDto, CsrService, ExportCsrDto, SignCsrDto, SigningService, VAULT_PRESENTATION } from '@app/pki/cert-service';

/** The certificate operations both ports serve, as the vault's prefix B presents them (docs/api/vault.md). */
export const VaultCertificateOperations = certificateOperations(VAULT_PRESENTATION);

/** The vault's own: CSRs on prefix B (createCSR, exportCSR as KMP's K3) and PAM360's signCSR. */
@ApiLayout('vaultB')
@Controller('api/pki/restapi')
export class VaultCertificatesController {
  constructor(
    private readonly csrs: CsrService,
    private readonly signing: SigningService,
  ) {}

  @Post('createCSR')
  @Operation('CreateCertificate', Permission.PkiManage)
  async createCsr(@CurrentActor() actor: Actor, @Input(CertificateRequestDto) dto: CertificateRequestDto) {
    return certReplies.csrCreated(await this.csrs.create(actor, dto));
  }

  /** KMP K3, as on the key manager. */
  @Get('exportCSR')
  @Operation('ExportCSR', Permission.PkiRead)
  @SecretPath('export')
  exportCsr(@CurrentActor() actor: Actor, @Input(ExportCsrDto) dto: ExportCsrDto) {
    return this.csrs.export(actor, dto);
  }

  @Post('signCSR')
  @Operation('SignCSR', Permission.PkiManage)
  async sign(@CurrentActor() actor: Actor, @Input(SignCsrDto) dto: SignCsrDto) {
    return certReplies.signed(await this.signing.sign(actor, dto));
  }
}
