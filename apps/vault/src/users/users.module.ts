import { Module } from '@nestjs/common';
import { GroupsModule } from '../groups/groups.module';
import { ResourcesModule } from '../resources/resources.module';
import { UsersPrefixBController } from './users-b.controller';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

/** Users, tokens and user-group membership (spec ops 17, 22, 23, 42-46). */
@Module({
  imports: [ResourcesModule, GroupsModule],
  controllers: [UsersController, UsersPrefixBController],
  providers: [UsersService],
})
export class UsersModule {}
