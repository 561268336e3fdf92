import { Controller, Get, Param, Put, Req } from '@nestjs/common';
import { Actor } from '@app/audit';
import { AuthedRequest, AuthenticatedInHandler, CurrentActor, Permission } from '@app/auth';
import { SecretPath } from '@app/gate';
import { ApiLayout, Input, Operation, reply } from '@app/http';
import { parseId } from '../common/ids';
import { RemotePasswords } from '../remote-reset/remote-passwords';
import { ChangePasswordDto, RetrievePasswordDto } from './password.dto';
import { PasswordChanger } from './password-changer';
import { PasswordReader } from './password-reader';

@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class PasswordsController {
  constructor(
    private readonly reader: PasswordReader,
    private readonly changer: PasswordChanger,
    private readonly remote: RemotePasswords,
  ) {}

  // The hot path: its one SQL statement also authenticates the caller (see PasswordReader).
  @Get(':rid/accounts/:aid/password')
  @Operation('GET PASSWORD', Permission.PasswordRetrieve)
  @SecretPath('read')
  @AuthenticatedInHandler()
  retrieve(
    @Req() req: AuthedRequest,
    @Param('rid') rid: string,
    @Param('aid') aid: string,
    @Input(RetrievePasswordDto) dto: RetrievePasswordDto,
  ) {
    return this.reader.readAsCaller(req, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto.REASON, dto.TICKETID);
  }

  @Put(':rid/accounts/:aid/password')
  @Operation('CHANGE PASSWORD', Permission.PasswordChange)
  @SecretPath('change')
  async change(
    @CurrentActor() actor: Actor,
    @Param('rid') rid: string,
    @Param('aid') aid: string,
    @Input(ChangePasswordDto) dto: ChangePasswordDto,
  ) {
    const change = dto.RESETTYPE === 'REMOTE' ? this.remote.changeForCaller.bind(this.remote) : this.changer.changeLocal.bind(this.changer);
    await change(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto.NEWPASSWORD, dto.REASON, dto.TICKETID);
    return reply('Password changed successfully');
  }
}
