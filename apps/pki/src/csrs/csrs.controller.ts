import { Controller, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, UploadedPart } from '@app/http';
import { CertificateRequestDto, certReplies, CsrService, ImportCsrDto, SignCsrDto, SigningService } from '@app/pki/cert-service';

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

  @Post('signCSR')
  @Operation('SignCSR', Permission.PkiManage)
  async sign(@CurrentActor() actor: Actor, @Input(SignCsrDto) dto: SignCsrDto) {
    return certReplies.signed(await this.signing.sign(actor, dto));
  }
}
