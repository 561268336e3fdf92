import { Controller, Get, Param, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { parseId } from '../common/ids';
import { CreateResourceDto, ResourceSearchDto } from './resource.dto';
import { ResourcesService } from './resources.service';

@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class ResourcesController {
  constructor(private readonly resources: ResourcesService) {}

  @Get()
  @Operation('GET RESOURCES', Permission.ResourceRead)
  list(@CurrentActor() actor: Actor, @Input(ResourceSearchDto) search: ResourceSearchDto) {
    return this.resources.list(actor, search);
  }

  @Post()
  @Operation('CREATE RESOURCE', Permission.ResourceCreate)
  create(@CurrentActor() actor: Actor, @Input(CreateResourceDto) dto: CreateResourceDto) {
    return this.resources.create(actor, dto);
  }

  @Get(':rid/accounts')
  @Operation('GET RESOURCE ACCOUNTLIST', Permission.ResourceRead)
  accounts(@CurrentActor() actor: Actor, @Param('rid') rid: string) {
    return this.resources.accountList(actor, parseId(rid, 'resource id'));
  }
}
