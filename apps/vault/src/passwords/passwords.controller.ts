import { Controller, Get, Param, Put } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, AppError, ErrorCode, Input, Operation, reply } from '@app/http';
import { parseId } from '../common/ids';
import { ChangePasswordDto, RetrievePasswordDto } from './password.dto';
import { PasswordChanger } from './password-changer';
import { PasswordReader } from './password-reader';

@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class PasswordsController {
  constructor(
    private readonly reader: PasswordReader,
    private readonly changer: PasswordChanger,
  ) {}

  @Get(':rid/accounts/:aid/password')
  @Operation('GET PASSWORD', Permission.PasswordRetrieve)
  retrieve(
    @CurrentActor() actor: Actor,
    @Param('rid') rid: string,
    @Param('aid') aid: string,
    @Input(RetrievePasswordDto) dto: RetrievePasswordDto,
  ) {
    return this.reader.read(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto.REASON, dto.TICKETID);
  }

  @Put(':rid/accounts/:aid/password')
  @Operation('CHANGE PASSWORD', Permission.PasswordChange)
  async change(
    @CurrentActor() actor: Actor,
    @Param('rid') rid: string,
    @Param('aid') aid: string,
    @Input(ChangePasswordDto) dto: ChangePasswordDto,
  ) {
    if (dto.RESETTYPE === 'REMOTE') {
      throw new AppError(ErrorCode.Unavailable, 'Remote password reset is not configured for this resource');
    }
    await this.changer.changeLocal(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto.NEWPASSWORD, dto.REASON, dto.TICKETID);
    return reply('Password changed successfully');
  }
}
