import { Controller, Get, Param } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { SecretPath } from '@app/gate';
import { ApiLayout, Input, Operation } from '@app/http';
import { parseId } from '../common/ids';
import { DownloadFileDto } from './download.dto';
import { FilesService } from './files.service';

@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Get(':rid/accounts/:aid/downloadfile')
  @Operation('DOWNLOAD FILE', Permission.PasswordRetrieve)
  @SecretPath('download')
  download(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string, @Input(DownloadFileDto) dto: DownloadFileDto) {
    return this.files.download(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto);
  }
}
