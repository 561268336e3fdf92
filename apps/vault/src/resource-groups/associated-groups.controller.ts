import { Controller, Get, Param } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Operation } from '@app/http';
import { parseId } from '../common/ids';
import { ResourceGroupReader } from './resource-group-reader';

/** PAM360's GET /resources/{rid}/associatedGroups: the groups a resource the caller sees belongs to. */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class AssociatedGroupsController {
  constructor(private readonly groups: ResourceGroupReader) {}

  @Get(':rid/associatedGroups')
  @Operation('GET ASSOCIATED GROUPS', Permission.ResourceRead)
  associatedGroups(@CurrentActor() actor: Actor, @Param('rid') rid: string) {
    return this.groups.associatedGroups(actor, parseId(rid, 'resource id'));
  }
}
