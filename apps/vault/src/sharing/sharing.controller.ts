import { Controller, Param, Put } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { parseId } from '../common/ids';
import { ShareDto } from './share.dto';
import { SharingService } from './sharing.service';

@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class SharingController {
  constructor(private readonly sharing: SharingService) {}

  @Put(':rid/share')
  @Operation('SHARE RESOURCE', Permission.ResourceManage)
  shareResource(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Input(ShareDto) dto: ShareDto) {
    return this.sharing.shareResource(actor, parseId(rid, 'resource id'), dto);
  }

  @Put(':rid/accounts/:aid/share')
  @Operation('SHARE ACCOUNT', Permission.ResourceManage)
  shareAccount(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string, @Input(ShareDto) dto: ShareDto) {
    return this.sharing.shareAccount(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto);
  }
}
