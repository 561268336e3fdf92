import { Controller, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { AcceptHostKeyDto, ApplyCredentialsDto, AssociateKeyDto, EnumerateUsersDto, SshDiscoveryDto, SshOperations, UserOnResourceDto } from '@app/pki/ssh-service';

/** SSH hosts, their users and key associations on the pki service (docs/api/pki.md), plus SSH host discovery. */
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

  @Post('associateKey')
  @Operation('associateKey', Permission.PkiManage)
  associate(@CurrentActor() actor: Actor, @Input(AssociateKeyDto) dto: AssociateKeyDto) {
    return this.ssh.associate(actor, dto);
  }

  @Post('dissociateKey')
  @Operation('dissociateKey', Permission.PkiManage, { successText: 'SUCCESS' })
  dissociate(@CurrentActor() actor: Actor, @Input(AssociateKeyDto) dto: AssociateKeyDto) {
    return this.ssh.dissociate(actor, dto);
  }

  @Get('getSSHkeysforuser')
  @Operation('GetSSHKeysForUser', Permission.PkiRead)
  keysForUser(@CurrentActor() actor: Actor, @Input(UserOnResourceDto) dto: UserOnResourceDto) {
    return this.ssh.keysForUser(actor, dto);
  }

  @Get('getAllAssociatedUsers')
  @Operation('GetAllAssociatedUsers', Permission.PkiRead)
  associatedUsers(@CurrentActor() actor: Actor) {
    return this.ssh.associatedUsers(actor);
  }

  @Post('sshHostDiscovery')
  @Operation('Get SSH Discovery', Permission.PkiManage)
  discover(@CurrentActor() actor: Actor, @Input(SshDiscoveryDto) dto: SshDiscoveryDto) {
    return this.ssh.discoverHosts(actor, dto);
  }

  /** After a host's key changed on purpose: pins the new key (audited) so SSH operations work again. */
  @Post('acceptSshHostKey')
  @Operation('AcceptSshHostKey', Permission.PkiManage)
  acceptHostKey(@CurrentActor() actor: Actor, @Input(AcceptHostKeyDto) dto: AcceptHostKeyDto) {
    return this.ssh.acceptHostKey(actor, dto);
  }
}
