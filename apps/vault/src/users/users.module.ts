import { Module } from '@nestjs/common';
import { GroupsModule } from '../groups/groups.module';
import { ResourcesModule } from '../resources/resources.module';
import { OrganizationAccessService } from './organization-access.service';
import { OrganizationsController } from './organizations.controller';
import { UsersPrefixBController } from './users-b.controller';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

/** Users, tokens, user-group membership and organisations (spec ops 17, 22, 23, 42-46; PAM360's look-ups). */
@Module({
  imports: [ResourcesModule, GroupsModule],
  controllers: [UsersController, UsersPrefixBController, OrganizationsController],
  providers: [UsersService, OrganizationAccessService],
  exports: [UsersService],
})
export class UsersModule {}
