import { Controller, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, UploadedPart } from '@app/http';
import { SecretPath } from '@app/gate';
import { CertificateRequestDto, certReplies, CsrService, ExportCsrDto, ImportCsrDto, SignCsrDto, SigningService } from '@app/pki/cert-service';

/** docs/api/pki.md. */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class CsrsController {
  constructor(
    private readonly csrs: CsrService,
    private readonly signing: SigningService,
  ) {}

  @Post('createCSR')
  @Operation('CreateCertificate', Permission.PkiManage)
  async create(@CurrentActor() actor: Actor, @Input(CertificateRequestDto) dto: CertificateRequestDto) {
    return certReplies.csrCreated(await this.csrs.create(actor, dto));
  }

  @Get('getCSRList')
  @Operation('GetCSRList', Permission.PkiRead)
  async list(@CurrentActor() actor: Actor) {
    return certReplies.csrList(await this.csrs.list(actor));
  }

  @Post('importCSR')
  @Operation('importCSR', Permission.PkiManage)
  async import(
    @CurrentActor() actor: Actor,
    @Input(ImportCsrDto) dto: ImportCsrDto,
    @UploadedPart('CSR') csr?: Express.Multer.File,
    @UploadedPart('Key') key?: Express.Multer.File,
  ) {
    return certReplies.csrImported(await this.csrs.import(actor, dto, csr?.buffer, key?.buffer));
  }

  /** KMP K3: the file itself; a key or key store through PkiSecretGate. */
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
