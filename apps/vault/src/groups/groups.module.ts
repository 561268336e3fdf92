import { Module } from '@nestjs/common';
import { UserGroupsService } from './user-groups.service';

@Module({ providers: [UserGroupsService], exports: [UserGroupsService] })
export class GroupsModule {}
