import { Controller, Get, Param } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Operation } from '@app/http';
import { parseId } from '../common/ids';
import { AccountsService } from './accounts.service';

@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get(':rid/accounts/:aid')
  @Operation('GET RESOURCE ACCOUNT DETAILS', Permission.ResourceRead)
  details(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.accounts.details(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'));
  }
}
