import { Controller, Get, Param, Put } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { parseId } from '../common/ids';
import { AccessControlDto } from './access-control.dto';
import { AccessControlService } from './access-control.service';

/** The extra operation (docs/api/vault.md, "Password access control"): password access control of a resource or one account. */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class AccessControlController {
  constructor(private readonly accessControl: AccessControlService) {}

  @Put(':rid/accesscontrol')
  @Operation('CONFIGURE ACCESS CONTROL', Permission.ResourceManage)
  configureResource(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Input(AccessControlDto) dto: AccessControlDto) {
    return this.accessControl.configure(actor, parseId(rid, 'resource id'), null, dto);
  }

  @Put(':rid/accounts/:aid/accesscontrol')
  @Operation('CONFIGURE ACCESS CONTROL', Permission.ResourceManage)
  configureAccount(
    @CurrentActor() actor: Actor,
    @Param('rid') rid: string,
    @Param('aid') aid: string,
    @Input(AccessControlDto) dto: AccessControlDto,
  ) {
    return this.accessControl.configure(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto);
  }

  @Get(':rid/accounts/:aid/accesscontrol')
  @Operation('GET ACCESS CONTROL', Permission.ResourceRead)
  show(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.accessControl.show(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'));
  }
}
