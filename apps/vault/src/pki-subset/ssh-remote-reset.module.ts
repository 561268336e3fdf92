import { Global, Module } from '@nestjs/common';
import { ResourcesModule } from '../resources/resources.module';
import { SshRemoteReset } from './ssh-remote-reset';

/**
 * Global so that the password controller (in ResourcesModule) and the request workflow
 * can inject SshRemoteReset without ResourcesModule importing this module back.
 */
@Global()
@Module({ imports: [ResourcesModule], providers: [SshRemoteReset], exports: [SshRemoteReset] })
export class SshRemoteResetModule {}
