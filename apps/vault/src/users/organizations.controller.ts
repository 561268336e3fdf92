import { Controller, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { OrganizationAccessService } from './organization-access.service';
import { ManageOrgAccessDto } from './user.dto';
import { UsersService } from './users.service';

/** PAM360's organisation operations: the organisations the caller may name in orgName, and access to them. */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/organizations')
export class OrganizationsController {
  constructor(
    private readonly users: UsersService,
    private readonly access: OrganizationAccessService,
  ) {}

  @Get()
  @Operation('GET ORGANIZATIONS', Permission.ResourceRead)
  list(@CurrentActor() actor: Actor) {
    return this.users.organizations(actor);
  }

  @Post('manage')
  @Operation('MANAGE ORGANIZATION ACCESS', Permission.UserManage)
  manage(@CurrentActor() actor: Actor, @Input(ManageOrgAccessDto) dto: ManageOrgAccessDto) {
    return this.access.manage(actor, dto);
  }
}
