import { Controller, Get, Param, Post, Put } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { SecretPath } from '@app/gate';
import { ApiLayout, Input, Operation, reply } from '@app/http';
import { parseId } from '../common/ids';
import { PasswordVerifier } from './password-verifier';
import { RemoteConfiguration } from './remote-configuration';
import { RemotePasswords } from './remote-passwords';
import { ConfigureRemoteResetDto, RemoteUseDto } from './remote-reset.dto';

/** Extra operations (docs/api/vault.md): remote password reset settings, verification, reconcile. */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class RemoteResetController {
  constructor(
    private readonly configuration: RemoteConfiguration,
    private readonly verifier: PasswordVerifier,
    private readonly remote: RemotePasswords,
  ) {}

  @Put(':rid/remotepasswordreset')
  @Operation('CONFIGURE REMOTE PASSWORD RESET', Permission.ResourceManage)
  @SecretPath('use')
  configure(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Input(ConfigureRemoteResetDto) dto: ConfigureRemoteResetDto) {
    return this.configuration.configure(actor, parseId(rid, 'resource id'), dto);
  }

  @Get(':rid/remotepasswordreset')
  @Operation('GET REMOTE PASSWORD RESET', Permission.ResourceRead)
  describe(@CurrentActor() actor: Actor, @Param('rid') rid: string) {
    return this.configuration.describe(actor, parseId(rid, 'resource id'));
  }

  @Post(':rid/accounts/:aid/verify')
  @Operation('VERIFY PASSWORD', Permission.PasswordChange)
  @SecretPath('use')
  verify(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string, @Input(RemoteUseDto) dto: RemoteUseDto) {
    return this.verifier.verifyForCaller(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto.REASON, dto.TICKETID);
  }

  @Post(':rid/accounts/:aid/reconcile')
  @Operation('RECONCILE PASSWORD', Permission.PasswordChange)
  @SecretPath('change')
  async reconcile(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Param('aid') aid: string, @Input(RemoteUseDto) dto: RemoteUseDto) {
    await this.remote.reconcile(actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), dto.REASON, dto.TICKETID);
    return reply('Password reconciled successfully');
  }
}
