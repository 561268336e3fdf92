import { Module } from '@nestjs/common';
import { SshServiceModule } from '@app/ssh/service';
import { VaultSshKeysController } from './ssh-keys.controller';

/** SSH on the vault: the prefix-B key subset (remote password reset lives in remote-reset/). */
@Module({
  imports: [SshServiceModule],
  controllers: [VaultSshKeysController],
})
export class VaultSshModule {}
