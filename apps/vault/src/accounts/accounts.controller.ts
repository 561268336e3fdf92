import { Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { SecretPath } from '@app/gate';
import { ApiLayout, Input, Operation } from '@app/http';
import { parseId } from '../common/ids';
import { AddAccountsDto, EditAccountDto } from './account.dto';
import { AccountsService } from './accounts.service';

@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post(':rid/accounts')
  @Operation('ADD ACCOUNTS', Permission.ResourceCreate)
  add(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Input(AddAccountsDto) dto: AddAccountsDto) {
    return this.accounts.add(actor, parseId(rid, 'resource id'), dto);
  }

  @Get(':rid/accounts/:aid')
  @Operation('GET RESOURCE ACCOUNT DETAILS', Permission.ResourceRead)
  details(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.accounts.details(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'));
  }

  @Put(':rid/accounts/:aid')
  @Operation('EDIT ACCOUNT', Permission.PasswordChange)
  @SecretPath('redirect')
  edit(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string, @Input(EditAccountDto) dto: EditAccountDto) {
    return this.accounts.edit(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto);
  }

  @Delete(':rid/accounts/:aid')
  @Operation('DELETE ACCOUNT', Permission.ResourceManage)
  delete(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.accounts.delete(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'));
  }
}
