import { Module } from '@nestjs/common';
import { PasswordRequestsModule } from '../password-requests/password-requests.module';
import { ResourcesModule } from '../resources/resources.module';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { ACCOUNT_ROTATOR } from './account-rotator';
import { DualAccountsController } from './dual-accounts.controller';
import { DualAccountsService } from './dual-accounts.service';
import { RemoteAccountRotator } from './remote-account-rotator';
import { RotationNotices } from './rotation-notices';
import { RotationScheduler } from './rotation-scheduler';
import { RotationSchedulesController } from './rotation-schedules.controller';
import { RotationSchedulesService } from './rotation-schedules.service';

/** Scheduled rotation per resource group, the rotation webhook and its notices (issue 26). */
@Module({
  imports: [ResourceGroupsModule, ResourcesModule, PasswordRequestsModule],
  controllers: [RotationSchedulesController, DualAccountsController],
  providers: [RotationSchedulesService, DualAccountsService, RotationNotices, RotationScheduler, { provide: ACCOUNT_ROTATOR, useClass: RemoteAccountRotator }],
})
export class RotationModule {}
