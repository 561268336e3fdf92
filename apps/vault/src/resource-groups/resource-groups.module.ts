import { Module } from '@nestjs/common';
import { AssociatedGroupsController } from './associated-groups.controller';
import { ResourceGroupReader } from './resource-group-reader';
import { ResourceGroupsController } from './resource-groups.controller';
import { ResourceGroupsService } from './resource-groups.service';

/** Resource groups (op 50 and extensions). */
@Module({
  controllers: [ResourceGroupsController, AssociatedGroupsController],
  providers: [ResourceGroupsService, ResourceGroupReader],
  exports: [ResourceGroupsService],
})
export class ResourceGroupsModule {}
