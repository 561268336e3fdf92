import { Controller, Delete, Get, Param, Post, Put, Req } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, ParsedRequest, readField } from '@app/http';
import { parseId } from '../common/ids';
import { parseGroupInput } from './group-criteria';
import { BulkShareGroupsDto, GroupMembersDto, ResourceGroupListDto, ShareGroupDto } from './resource-group.dto';
import { ResourceGroupReader } from './resource-group-reader';
import { ResourceGroupsService } from './resource-groups.service';

/** Op 50 (CREATE RESOURCE GROUP) and the extensions (ours and PAM360's) that list, fill, share and delete groups. */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/resourcegroup')
export class ResourceGroupsController {
  constructor(
    private readonly groups: ResourceGroupsService,
    private readonly reader: ResourceGroupReader,
  ) {}

  @Post()
  @Operation('CREATE RESOURCE GROUP', Permission.ResourceGroupManage)
  create(@CurrentActor() actor: Actor, @Req() req: ParsedRequest) {
    return this.groups.create(actor, parseGroupInput((name) => readField(req, name)));
  }

  @Get()
  @Operation('GET RESOURCE GROUPS', Permission.ResourceRead)
  list(@CurrentActor() actor: Actor, @Input(ResourceGroupListDto) query: ResourceGroupListDto) {
    return this.reader.list(actor, query);
  }

  // PAM360's form of the same decisions: the group share, then the membership changes.
  @Put('share')
  @Operation('SHARE RESOURCE GROUP', Permission.ResourceGroupManage)
  shareMany(@CurrentActor() actor: Actor, @Input(BulkShareGroupsDto) dto: BulkShareGroupsDto) {
    return this.groups.shareMany(actor, dto);
  }

  @Post(':gid/associateResources')
  @Operation('ASSOCIATE RESOURCES', Permission.ResourceGroupManage)
  associate(@CurrentActor() actor: Actor, @Param('gid') gid: string, @Input(GroupMembersDto) dto: GroupMembersDto) {
    return this.groups.addResources(actor, parseId(gid, 'resource group id'), dto.RESOURCEIDS);
  }

  @Post([':gid/disassociateResources', ':gid/dissociateResources'])
  @Operation('DISASSOCIATE RESOURCES', Permission.ResourceGroupManage)
  disassociate(@CurrentActor() actor: Actor, @Param('gid') gid: string, @Input(GroupMembersDto) dto: GroupMembersDto) {
    return this.groups.removeResources(actor, parseId(gid, 'resource group id'), dto.RESOURCEIDS);
  }

  @Get(':gid/resources')
  @Operation('GET RESOURCE GROUP RESOURCES', Permission.ResourceRead)
  resources(@CurrentActor() actor: Actor, @Param('gid') gid: string) {
    return this.groups.resources(actor, parseId(gid, 'resource group id'));
  }

  @Put(':gid/resources')
  @Operation('ADD RESOURCES TO GROUP', Permission.ResourceGroupManage)
  addResources(@CurrentActor() actor: Actor, @Param('gid') gid: string, @Input(GroupMembersDto) dto: GroupMembersDto) {
    return this.groups.addResources(actor, parseId(gid, 'resource group id'), dto.RESOURCEIDS);
  }

  @Put(':gid/share')
  @Operation('SHARE RESOURCE GROUP', Permission.ResourceGroupManage)
  share(@CurrentActor() actor: Actor, @Param('gid') gid: string, @Input(ShareGroupDto) dto: ShareGroupDto) {
    return this.groups.share(actor, parseId(gid, 'resource group id'), dto);
  }

  @Delete(':gid')
  @Operation('DELETE RESOURCE GROUP', Permission.ResourceGroupManage)
  remove(@CurrentActor() actor: Actor, @Param('gid') gid: string) {
    return this.groups.remove(actor, parseId(gid, 'resource group id'));
  }
}
