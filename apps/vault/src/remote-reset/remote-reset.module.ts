import { Global, Module } from '@nestjs/common';
import { ExpiryChannels } from '@app/pki/expiry-notices';
import { ResourcesModule } from '../resources/resources.module';
import { PasswordVerifier } from './password-verifier';
import { RemoteConfiguration } from './remote-configuration';
import { RemotePasswords } from './remote-passwords';
import { RemoteResetController } from './remote-reset.controller';
import { SyncRecorder } from './sync-recorder';
import { VerificationRounds } from './verification-rounds';

/**
 * Remote password reset for every connector kind (libs/connectors), verification and
 * reconcile. Global so that the password controller (in ResourcesModule) and the request
 * workflow can inject RemotePasswords without ResourcesModule importing this module back.
 */
@Global()
@Module({
  imports: [ResourcesModule],
  controllers: [RemoteResetController],
  providers: [RemotePasswords, RemoteConfiguration, PasswordVerifier, SyncRecorder, VerificationRounds, ExpiryChannels],
  exports: [RemotePasswords, PasswordVerifier, VerificationRounds, ExpiryChannels],
})
export class RemoteResetModule {}
