import { Controller, Get, Param, Put, Req } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Operation, ParsedRequest, readField } from '@app/http';
import { parseId } from '../common/ids';
import { DualAccountsService, parseDualAccount } from './dual-accounts.service';

/** Two-account rotation: an account and its partner rotate in turn, reads answer the current one (issue 26). */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources/:rid/accounts/:aid/dualaccount')
export class DualAccountsController {
  constructor(private readonly pairs: DualAccountsService) {}

  @Put()
  @Operation('CONFIGURE DUAL ACCOUNT', Permission.ResourceManage)
  configure(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string, @Req() req: ParsedRequest) {
    return this.pairs.configure(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), parseDualAccount((name) => readField(req, name)));
  }

  @Get()
  @Operation('GET DUAL ACCOUNT', Permission.ResourceRead)
  show(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.pairs.show(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'));
  }
}
