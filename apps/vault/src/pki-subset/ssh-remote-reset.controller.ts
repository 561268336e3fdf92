import { Controller, Get, Param, Put } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { SecretPath } from '@app/gate';
import { ApiLayout, Input, Operation } from '@app/http';
import { parseId } from '../common/ids';
import { ConfigureRemoteResetDto } from './ssh-remote-reset.dto';
import { SshRemoteReset } from './ssh-remote-reset';

/** Extra operation (docs/api/vault.md, "Remote password reset"): which account logs in to a Linux resource for RESETTYPE=REMOTE. */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class SshRemoteResetController {
  constructor(private readonly remote: SshRemoteReset) {}

  @Put(':rid/remotepasswordreset')
  @Operation('CONFIGURE REMOTE PASSWORD RESET', Permission.ResourceManage)
  @SecretPath('use')
  configure(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Input(ConfigureRemoteResetDto) dto: ConfigureRemoteResetDto) {
    return this.remote.configure(actor, parseId(rid, 'resource id'), dto);
  }

  @Get(':rid/remotepasswordreset')
  @Operation('GET REMOTE PASSWORD RESET', Permission.ResourceRead)
  describe(@CurrentActor() actor: Actor, @Param('rid') rid: string) {
    return this.remote.describe(actor, parseId(rid, 'resource id'));
  }
}
