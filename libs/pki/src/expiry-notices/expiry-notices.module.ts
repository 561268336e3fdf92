import { Module } from '@nestjs/common';
import { ExpiryChannels } from './expiry-channels';
import { ExpiryNotifier } from './expiry-notifier';

/** The background expiry notifier; imported by the pki service only. */
@Module({
  providers: [ExpiryChannels, ExpiryNotifier],
  exports: [ExpiryNotifier],
})
export class ExpiryNoticesModule {}
