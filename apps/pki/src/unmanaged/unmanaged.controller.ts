import { Controller, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, Reply } from '@app/http';
import { UnmanagedCertificatesService, UnmanagedListDto } from '@app/pki/unmanaged';
import { importReply, listReplyOf } from './unmanaged-replies';
import { AnyUpload } from './any-upload.decorator';

/** Spec ops 44, 45. The import is a GET with an uploaded file in the spec; POST is accepted too. */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class UnmanagedController {
  constructor(private readonly unmanaged: UnmanagedCertificatesService) {}

  @Get('getUnmanagedCertList')
  @Operation('getUnmanagedCertList', Permission.PkiRead)
  async list(@CurrentActor() actor: Actor, @Input(UnmanagedListDto) dto: UnmanagedListDto): Promise<Reply> {
    return listReplyOf(await this.unmanaged.list(actor, dto.type));
  }

  @Get('discoverUnmanagedCert')
  @Operation('DiscoverUnmanagedCert', Permission.PkiManage, { capitalResult: true })
  async import(@CurrentActor() actor: Actor, @AnyUpload() file?: Pick<Express.Multer.File, 'buffer'>): Promise<Reply> {
    return importReply(await this.unmanaged.import(actor, file?.buffer));
  }

  @Post('discoverUnmanagedCert')
  @Operation('DiscoverUnmanagedCert', Permission.PkiManage, { capitalResult: true })
  importByPost(@CurrentActor() actor: Actor, @AnyUpload() file?: Pick<Express.Multer.File, 'buffer'>): Promise<Reply> {
    return this.import(actor, file);
  }
}
