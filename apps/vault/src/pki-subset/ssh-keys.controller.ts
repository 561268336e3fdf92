import { Controller, Delete, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, UploadedPart } from '@app/http';
import { SecretPath } from '@app/gate';
import {
  AcceptHostKeyDto, AssociateKeyDto, CreateSshKeyDto, DeleteSshKeyDto, ExportSshKeyDto, ImportSshKeyDto, KeyNameDto, SshOperations, UserOnResourceDto,
} from '@app/pki/ssh-service';

/** The vault's SSH subset on prefix B (docs/api/vault.md, prefix B), same domain as the pki service. */
@ApiLayout('vaultB')
@Controller('api/pki/restapi')
export class VaultSshKeysController {
  constructor(private readonly ssh: SshOperations) {}

  @Post('createsshkey')
  @Operation('CreateSSHKey', Permission.PkiManage)
  create(@CurrentActor() actor: Actor, @Input(CreateSshKeyDto) dto: CreateSshKeyDto) {
    return this.ssh.createKey(actor, dto);
  }

  @Delete('deleteSSHKey')
  @Operation('DeleteSSHKey', Permission.PkiManage)
  delete(@CurrentActor() actor: Actor, @Input(DeleteSshKeyDto) dto: DeleteSshKeyDto) {
    return this.ssh.deleteKey(actor, dto);
  }

  @Get('getAllSSHKeys')
  @Operation('GetAllSSHKeys', Permission.PkiRead, { detailsKey: 'SSHKeys' })
  list(@CurrentActor() actor: Actor) {
    return this.ssh.listKeys(actor, 'vault');
  }

  @Post('getSSHKey')
  @Operation('GetSSHKey', Permission.PkiRead, { detailsKey: 'SSHKey' })
  get(@CurrentActor() actor: Actor, @Input(KeyNameDto) dto: KeyNameDto) {
    return this.ssh.getKey(actor, dto.keyName, 'vault');
  }

  @Post('exportSSHKey')
  @Operation('ExportSSHKey', Permission.PkiRead)
  @SecretPath('export')
  export(@CurrentActor() actor: Actor, @Input(ExportSshKeyDto) dto: ExportSshKeyDto) {
    return this.ssh.exportKey(actor, dto);
  }

  @Get('getSSHkeysforuser')
  @Operation('GetSSHKeysForUser', Permission.PkiRead, { detailsKey: 'Keys' })
  keysForUser(@CurrentActor() actor: Actor, @Input(UserOnResourceDto) dto: UserOnResourceDto) {
    return this.ssh.keysForUser(actor, dto);
  }

  @Get('getAllAssociatedUsers')
  @Operation('GetAllAssociatedUsers', Permission.PkiRead, { detailsKey: 'AllAssociatedUsers' })
  associatedUsers(@CurrentActor() actor: Actor) {
    return this.ssh.associatedUsers(actor);
  }

  @Post('addSSHKey')
  @Operation('addSSHKey', Permission.PkiManage, { successText: 'SUCCESS' })
  import(@CurrentActor() actor: Actor, @Input(ImportSshKeyDto) dto: ImportSshKeyDto, @UploadedPart('File') file?: Express.Multer.File) {
    return this.ssh.importKey(actor, dto, file);
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

  /** After a host's key changed on purpose: pins the new key (audited) so SSH operations work again. */
  @Post('acceptSshHostKey')
  @Operation('AcceptSshHostKey', Permission.PkiManage)
  acceptHostKey(@CurrentActor() actor: Actor, @Input(AcceptHostKeyDto) dto: AcceptHostKeyDto) {
    return this.ssh.acceptHostKey(actor, dto);
  }
}
