import { Module } from '@nestjs/common';
import { SshServiceModule } from '@app/ssh/service';
import { PkiSshKeyOperations, SshKeysController } from './ssh-keys.controller';

@Module({ imports: [SshServiceModule], controllers: [PkiSshKeyOperations, SshKeysController] })
export class SshKeysModule {}
