import { Module } from '@nestjs/common';
import { SshServiceModule } from '@app/pki/ssh-service';
import { VaultSshKeysController } from './ssh-keys.controller';
import { SshRemoteResetController } from './ssh-remote-reset.controller';
import { SshRemoteResetModule } from './ssh-remote-reset.module';

/** SSH on the vault: the prefix-B key subset and the remote reset settings of Linux resources. */
@Module({
  imports: [SshServiceModule, SshRemoteResetModule],
  controllers: [VaultSshKeysController, SshRemoteResetController],
})
export class VaultSshModule {}
