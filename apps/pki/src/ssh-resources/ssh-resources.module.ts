import { Module } from '@nestjs/common';
import { SshServiceModule } from '@app/ssh/service';
import { SshResourcesController } from './ssh-resources.controller';

@Module({ imports: [SshServiceModule], controllers: [SshResourcesController] })
export class SshResourcesModule {}
