import { Module } from '@nestjs/common';
import { SshServiceModule } from '@app/pki/ssh-service';
import { SshKeysController } from './ssh-keys.controller';

@Module({ imports: [SshServiceModule], controllers: [SshKeysController] })
export class SshKeysModule {}
