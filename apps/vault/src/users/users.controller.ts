import { Controller, Delete, Get, Param, Post, Put, Req } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, ParsedRequest } from '@app/http';
import { parseId } from '../common/ids';
import { fromPrefixA } from './new-user';
import { orgHeader } from './org-scope';
import { AddToUserGroupDto, CreateUserDto, UserGroupNameDto, UserNameDto } from './user.dto';
import { UsersService } from './users.service';

/** Prefix A user operations (spec 22, 23, 42-46, PAM360's getUserGroupId); the orgName header picks the organisation. */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/user')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @Operation('CREATE_USER', Permission.UserManage)
  create(@CurrentActor() actor: Actor, @Input(CreateUserDto) dto: CreateUserDto) {
    return this.users.create(actor, fromPrefixA(dto));
  }

  @Get('getUserId')
  @Operation('get_USERID', Permission.UserManage)
  userId(@CurrentActor() actor: Actor, @Req() req: ParsedRequest, @Input(UserNameDto) dto: UserNameDto) {
    return this.users.userId(actor, orgHeader(req), dto.USERNAME);
  }

  @Get('getUserGroupId')
  @Operation('get_USERGROUPID', Permission.UserManage)
  userGroupId(@CurrentActor() actor: Actor, @Input(UserGroupNameDto) dto: UserGroupNameDto) {
    return this.users.userGroupId(actor, dto.USERGROUPNAME);
  }

  @Delete()
  @Operation('DELETE USER', Permission.UserManage)
  deleteByName(@CurrentActor() actor: Actor, @Req() req: ParsedRequest, @Input(UserNameDto) dto: UserNameDto) {
    return this.users.deleteByName(actor, orgHeader(req), dto.USERNAME);
  }

  @Post('addUserToUserGroup')
  @Operation('ADD USER TO USERGROUP', Permission.UserManage)
  addToGroup(@CurrentActor() actor: Actor, @Req() req: ParsedRequest, @Input(AddToUserGroupDto) dto: AddToUserGroupDto) {
    return this.users.addToGroup(actor, orgHeader(req), dto.USERNAME, dto.USERGROUPNAME);
  }

  @Put('lock')
  @Operation('LOCK USER', Permission.UserManage)
  lock(@CurrentActor() actor: Actor, @Req() req: ParsedRequest, @Input(UserNameDto) dto: UserNameDto) {
    return this.users.setLocked(actor, orgHeader(req), dto.USERNAME, true);
  }

  @Put('unlock')
  @Operation('UNLOCK USER', Permission.UserManage)
  unlock(@CurrentActor() actor: Actor, @Req() req: ParsedRequest, @Input(UserNameDto) dto: UserNameDto) {
    return this.users.setLocked(actor, orgHeader(req), dto.USERNAME, false);
  }

  @Delete(':userid')
  @Operation('DELETE USER', Permission.UserManage)
  deleteById(@CurrentActor() actor: Actor, @Req() req: ParsedRequest, @Param('userid') userId: string) {
    return this.users.deleteById(actor, orgHeader(req), parseId(userId, 'user id'));
  }
}
