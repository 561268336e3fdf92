import { Module } from '@nestjs/common';
import { ResourceGroupsController } from './resource-groups.controller';
import { ResourceGroupsService } from './resource-groups.service';

/** Resource groups (op 50 and extensions). */
@Module({
  controllers: [ResourceGroupsController],
  providers: [ResourceGroupsService],
  exports: [ResourceGroupsService],
})
export class ResourceGroupsModule {}
