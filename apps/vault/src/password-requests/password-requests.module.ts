import { Module } from '@nestjs/common';
import { ResourcesModule } from '../resources/resources.module';
import { AccessControlController } from './access-control.controller';
import { AccessControlService } from './access-control.service';
import { CheckinFinisher } from './checkin-finisher';
import { CheckoutService } from './checkout.service';
import { PasswordRequestsController } from './password-requests.controller';
import { PasswordRequestsService } from './password-requests.service';
import { REMOTE_PASSWORD_RESETTER } from './remote-reset';
import { RequestSweeper } from './request-sweeper';
import { RequestNotices } from './request-notices';
import { ExpiryChannels } from '@app/pki/expiry-notices';
import { ConnectorRemoteResetter } from './connector-resetter';

/** The password access workflow (spec ops 10-15, §3) and its access-control setting. */
@Module({
  imports: [ResourcesModule],
  controllers: [PasswordRequestsController, AccessControlController],
  providers: [
    PasswordRequestsService,
    CheckoutService,
    CheckinFinisher,
    AccessControlService,
    RequestSweeper,
    RequestNotices,
    ExpiryChannels,
    { provide: REMOTE_PASSWORD_RESETTER, useClass: ConnectorRemoteResetter },
  ],
  exports: [CheckinFinisher, RequestSweeper, REMOTE_PASSWORD_RESETTER, PasswordRequestsService, CheckoutService, AccessControlService],
})
export class PasswordRequestsModule {}
