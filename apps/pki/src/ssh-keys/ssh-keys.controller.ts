import { Controller, Get } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { SecretPath } from '@app/gate';
import { KeyNameDto, PKI_SSH_PRESENTATION, SshOperations, sshKeyOperations } from '@app/ssh/service';

/** The SSH key operations both ports serve, as this port presents them (docs/api/pki.md). */
export const PkiSshKeyOperations = sshKeyOperations(PKI_SSH_PRESENTATION);

/** The passphrase of a stored SSH key, which only the key manager serves (docs/api/pki.md). */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class SshKeysController {
  constructor(private readonly ssh: SshOperations) {}

  @Get('getSSHKeyPassphrase')
  // A pki secret: PkiSecretGate decides (pki.manage, organisation) and audits, refusals included.
  @Operation('GetSSHKeyPassphrase', Permission.PkiRead)
  @SecretPath('export')
  passphrase(@CurrentActor() actor: Actor, @Input(KeyNameDto) dto: KeyNameDto) {
    return this.ssh.passphrase(actor, dto.keyName);
  }
}
