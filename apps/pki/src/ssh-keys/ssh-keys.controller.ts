import { Controller, Delete, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, UploadedPart } from '@app/http';
import { SecretPath } from '@app/gate';
import { CreateSshKeyDto, DeleteSshKeyDto, ExportSshKeyDto, ImportSshKeyDto, KeyNameDto, SshOperations } from '@app/pki/ssh-service';

/** SSH keys on the pki service (docs/api/pki.md). */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class SshKeysController {
  constructor(private readonly ssh: SshOperations) {}

  @Post('createsshkey')
  @Operation('CreateSSHKey', Permission.PkiManage)
  create(@CurrentActor() actor: Actor, @Input(CreateSshKeyDto) dto: CreateSshKeyDto) {
    return this.ssh.createKey(actor, dto);
  }

  @Post('addSSHKey')
  @Operation('addSSHKey', Permission.PkiManage, { successText: 'SUCCESS' })
  import(@CurrentActor() actor: Actor, @Input(ImportSshKeyDto) dto: ImportSshKeyDto, @UploadedPart('File') file?: Express.Multer.File) {
    return this.ssh.importKey(actor, dto, file);
  }

  @Get('getAllSSHKeys')
  @Operation('GetAllSSHKeys', Permission.PkiRead)
  list(@CurrentActor() actor: Actor) {
    return this.ssh.listKeys(actor, 'pki');
  }

  @Post('getSSHKey')
  @Operation('GetSSHKey', Permission.PkiRead)
  get(@CurrentActor() actor: Actor, @Input(KeyNameDto) dto: KeyNameDto) {
    return this.ssh.getKey(actor, dto.keyName, 'pki');
  }

  @Post('exportSSHKey')
  @Operation('ExportSSHKey', Permission.PkiRead)
  @SecretPath('export')
  export(@CurrentActor() actor: Actor, @Input(ExportSshKeyDto) dto: ExportSshKeyDto) {
    return this.ssh.exportKey(actor, dto);
  }

  @Get('getSSHKeyPassphrase')
  // A pki secret: PkiSecretGate decides (pki.manage, organisation) and audits, refusals included.
  @Operation('GetSSHKeyPassphrase', Permission.PkiRead)
  @SecretPath('export')
  passphrase(@CurrentActor() actor: Actor, @Input(KeyNameDto) dto: KeyNameDto) {
    return this.ssh.passphrase(actor, dto.keyName);
  }

  @Delete('deleteSSHKey')
  @Operation('DeleteSSHKey', Permission.PkiManage)
  delete(@CurrentActor() actor: Actor, @Input(DeleteSshKeyDto) dto: DeleteSshKeyDto) {
    return this.ssh.deleteKey(actor, dto);
  }
}
