import { Controller, Delete, Get, Post, Type } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { SecretPath } from '@app/gate';
import { ApiLayout, Input, Layout, Operation, UploadedPart } from '@app/http';
import { AcceptHostKeyDto, AssociateKeyDto, CreateSshKeyDto, DeleteSshKeyDto, ExportSshKeyDto, ImportSshKeyDto, KeyNameDto, UserOnResourceDto } from './ssh-input';
import { SshOperations, SshPresentation } from './ssh-operations';

/**
 * How one port presents the SSH key operations both serve: the vault's prefix B (PAM360's
 * clients) reads each list under its own key and key records in its own shape; KMP's answers
 * have neither (docs/api/vault.md prefix B, docs/api/pki.md).
 */
export interface SshKeyPresentation {
  layout: Layout;
  records: SshPresentation;
  keysKey?: string;
  keyKey?: string;
  keysForUserKey?: string;
  associatedUsersKey?: string;
}

export const PKI_SSH_PRESENTATION: SshKeyPresentation = { layout: 'pki', records: 'pki' };

export const VAULT_SSH_PRESENTATION: SshKeyPresentation = {
  layout: 'vaultB',
  records: 'vault',
  keysKey: 'SSHKeys',
  keyKey: 'SSHKey',
  keysForUserKey: 'Keys',
  associatedUsersKey: 'AllAssociatedUsers',
};

/**
 * The SSH key operations served on both ports, declared once: each app mounts the controller
 * made for its presentation and adds the operations only it serves.
 */
export function sshKeyOperations(p: SshKeyPresentation): Type<unknown> {
  @ApiLayout(p.layout)
  @Controller('api/pki/restapi')
  class SshKeyOperations {
    constructor(readonly ssh: SshOperations) {}

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
    @Operation('GetAllSSHKeys', Permission.PkiRead, { detailsKey: p.keysKey })
    list(@CurrentActor() actor: Actor) {
      return this.ssh.listKeys(actor, p.records);
    }

    @Post('getSSHKey')
    @Operation('GetSSHKey', Permission.PkiRead, { detailsKey: p.keyKey })
    get(@CurrentActor() actor: Actor, @Input(KeyNameDto) dto: KeyNameDto) {
      return this.ssh.getKey(actor, dto.keyName, p.records);
    }

    @Post('exportSSHKey')
    @Operation('ExportSSHKey', Permission.PkiRead)
    @SecretPath('export')
    export(@CurrentActor() actor: Actor, @Input(ExportSshKeyDto) dto: ExportSshKeyDto) {
      return this.ssh.exportKey(actor, dto);
    }

    @Delete('deleteSSHKey')
    @Operation('DeleteSSHKey', Permission.PkiManage)
    delete(@CurrentActor() actor: Actor, @Input(DeleteSshKeyDto) dto: DeleteSshKeyDto) {
      return this.ssh.deleteKey(actor, dto);
    }

    @Get('getSSHkeysforuser')
    @Operation('GetSSHKeysForUser', Permission.PkiRead, { detailsKey: p.keysForUserKey })
    keysForUser(@CurrentActor() actor: Actor, @Input(UserOnResourceDto) dto: UserOnResourceDto) {
      return this.ssh.keysForUser(actor, dto);
    }

    @Get('getAllAssociatedUsers')
    @Operation('GetAllAssociatedUsers', Permission.PkiRead, { detailsKey: p.associatedUsersKey })
    associatedUsers(@CurrentActor() actor: Actor) {
      return this.ssh.associatedUsers(actor);
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
  return SshKeyOperations;
}
