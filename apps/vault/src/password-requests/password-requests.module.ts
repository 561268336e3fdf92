import { Module } from '@nestjs/common';
import { ResourcesModule } from '../resources/resources.module';
import { AccessControlController } from './access-control.controller';
import { AccessControlService } from './access-control.service';
import { CheckinFinisher } from './checkin-finisher';
import { CheckoutService } from './checkout.service';
import { PasswordRequestsController } from './password-requests.controller';
import { PasswordRequestsService } from './password-requests.service';
import { RequestSweeper } from './request-sweeper';

/** The password access workflow (spec ops 10-15, §3) and its access-control setting. */
@Module({
  imports: [ResourcesModule],
  controllers: [PasswordRequestsController, AccessControlController],
  providers: [PasswordRequestsService, CheckoutService, CheckinFinisher, AccessControlService, RequestSweeper],
  exports: [CheckinFinisher, RequestSweeper],
})
export class PasswordRequestsModule {}
