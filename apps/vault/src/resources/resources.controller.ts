import { Controller, Delete, Get, Param, Post, Put, Req } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { SecretPath } from '@app/gate';
import { ApiLayout, Input, Operation, ParsedRequest, UploadedPart } from '@app/http';
import { parseId } from '../common/ids';
import { CreateResourceDto, EditResourceDto, ResourceAccountIdsDto, ResourceAccountNamesDto, ResourceSearchDto } from './resource.dto';
import { ResourceLookupService } from './resource-lookup.service';
import { ResourceWriter } from './resource-writer';
import { ResourcesService } from './resources.service';

@ApiLayout('vaultA')
@Controller('restapi/json/v1/resources')
export class ResourcesController {
  constructor(
    private readonly resources: ResourcesService,
    private readonly writer: ResourceWriter,
    private readonly lookup: ResourceLookupService,
  ) {}

  @Get()
  @Operation('GET RESOURCES', Permission.ResourceRead)
  list(@CurrentActor() actor: Actor, @Input(ResourceSearchDto) search: ResourceSearchDto) {
    return this.resources.list(actor, search, { rendered: true });
  }

  @Post()
  @Operation('CREATE RESOURCE', Permission.ResourceCreate)
  create(
    @CurrentActor() actor: Actor,
    @Input(CreateResourceDto) dto: CreateResourceDto,
    @UploadedPart('file') file: Express.Multer.File | undefined,
    @Req() req: ParsedRequest,
  ) {
    return this.writer.create(actor, dto, file, req);
  }

  @Get('resourcetypes')
  @Operation('GET RESOURCE TYPES', Permission.ResourceRead)
  types() {
    return this.lookup.types();
  }

  @Get('getResourceIdAccountId')
  @Operation('GET_RESOURCEACCOUNTID', Permission.ResourceRead)
  ids(@CurrentActor() actor: Actor, @Input(ResourceAccountNamesDto) dto: ResourceAccountNamesDto) {
    return this.lookup.resourceAndAccountIds(actor, dto.RESOURCENAME, dto.ACCOUNTNAME);
  }

  @Get('getResourceAccountDetails')
  @Operation('GET_RESOURCEACCOUNTDETAILS', Permission.PasswordRetrieve)
  @SecretPath('read')
  accountDetails(@CurrentActor() actor: Actor, @Input(ResourceAccountIdsDto) dto: ResourceAccountIdsDto) {
    return this.lookup.accountDetails(actor, dto);
  }

  @Get('resourcename/:name')
  @Operation('GET_RESOURCEID', Permission.ResourceRead)
  idByName(@CurrentActor() actor: Actor, @Param('name') name: string) {
    return this.lookup.resourceId(actor, name);
  }

  // Op 8: the interface names this deletion GET_RESOURCEID, and clients match the name.
  @Delete('resourcename/:name')
  @Operation('GET_RESOURCEID', Permission.ResourceManage)
  async deleteByName(@CurrentActor() actor: Actor, @Param('name') name: string) {
    return this.writer.delete(actor, await this.lookup.resourceIdByName(actor, name));
  }

  @Get('resourcename/:rname/accounts/accountname/:aname')
  @Operation('GET_RESOURCEACCOUNTID', Permission.ResourceRead)
  idsByPath(@CurrentActor() actor: Actor, @Param('rname') rname: string, @Param('aname') aname: string) {
    return this.lookup.resourceAndAccountIds(actor, rname, aname);
  }

  @Get(':rid/accounts')
  @Operation('GET RESOURCE ACCOUNTLIST', Permission.ResourceRead)
  accounts(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Input(ResourceSearchDto) search: ResourceSearchDto) {
    return this.resources.accountList(actor, parseId(rid, 'resource id'), search);
  }

  @Put(':rid')
  @Operation('EDIT RESOURCE', Permission.ResourceManage)
  @SecretPath('redirect')
  edit(@CurrentActor() actor: Actor, @Param('rid') rid: string, @Input(EditResourceDto) dto: EditResourceDto) {
    return this.writer.edit(actor, parseId(rid, 'resource id'), dto);
  }

  @Delete(':rid')
  @Operation('DELETE RESOURCE', Permission.ResourceManage)
  delete(@CurrentActor() actor: Actor, @Param('rid') rid: string) {
    return this.writer.delete(actor, parseId(rid, 'resource id'));
  }
}
