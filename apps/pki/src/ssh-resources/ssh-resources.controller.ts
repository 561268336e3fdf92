import { Controller, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { ApplyCredentialsDto, EnumerateUsersDto, SshDiscoveryDto, SshOperations } from '@app/ssh/service';

/** SSH hosts and their users on the pki service (docs/api/pki.md), plus SSH host discovery; key associations are in sshKeyOperations. */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class SshResourcesController {
  constructor(private readonly ssh: SshOperations) {}

  @Post('applycredentials')
  @Operation('ApplyCredentials', Permission.PkiManage)
  applyCredentials(@CurrentActor() actor: Actor, @Input(ApplyCredentialsDto) dto: ApplyCredentialsDto) {
    return this.ssh.applyCredentials(actor, dto);
  }

  @Get('getAllSSHResourceDetails')
  @Operation('GetAllSSHResources', Permission.PkiRead)
  resources(@CurrentActor() actor: Actor) {
    return this.ssh.listResources(actor);
  }

  @Post('enumerateusers')
  @Operation('EnumerateUsers', Permission.PkiManage)
  enumerate(@CurrentActor() actor: Actor, @Input(EnumerateUsersDto) dto: EnumerateUsersDto) {
    return this.ssh.enumerateUsers(actor, dto);
  }

  @Get('getAllSSHUsers')
  @Operation('GetAllSSHUsers', Permission.PkiRead)
  users(@CurrentActor() actor: Actor) {
    return this.ssh.listUsers(actor);
  }

  @Post('sshHostDiscovery')
  @Operation('Get SSH Discovery', Permission.PkiManage)
  discover(@CurrentActor() actor: Actor, @Input(SshDiscoveryDto) dto: SshDiscoveryDto) {
    return this.ssh.discoverHosts(actor, dto);
  }
}
