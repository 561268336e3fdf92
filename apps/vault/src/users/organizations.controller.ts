import { Controller, Get } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Operation } from '@app/http';
import { UsersService } from './users.service';

/** PAM360's GET /organizations: the organisations the caller may name in the orgName header. */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/organizations')
export class OrganizationsController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Operation('GET ORGANIZATIONS', Permission.ResourceRead)
  list(@CurrentActor() actor: Actor) {
    return this.users.organizations(actor);
  }
}
