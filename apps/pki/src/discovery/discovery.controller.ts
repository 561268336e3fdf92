import { Controller, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, UploadedPart } from '@app/http';
import {
  DiscoveryService,
  DiscoveryStatusDto,
  discoveryReply,
  discoveryStatusReply,
  FileDiscoveryDto,
  RangeDiscoveryDto,
  SingleDiscoveryDto,
} from '@app/pki/discovery-service';

/** SSL discovery (spec ops 25-27) and our job-status operation. */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class DiscoveryController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Post('sslCertSingleDiscovery')
  @Operation('Get SSL Discovery', Permission.PkiManage)
  async single(@CurrentActor() actor: Actor, @Input(SingleDiscoveryDto) dto: SingleDiscoveryDto) {
    return discoveryReply(await this.discovery.single(actor, dto));
  }

  @Post('sslCertRangeDiscovery')
  @Operation('Get SSL Discovery', Permission.PkiManage)
  async range(@CurrentActor() actor: Actor, @Input(RangeDiscoveryDto) dto: RangeDiscoveryDto) {
    return discoveryReply(await this.discovery.range(actor, dto));
  }

  @Post('sslCertFileBasedDiscovery')
  @Operation('Get SSL Discovery', Permission.PkiManage)
  async fromFile(@CurrentActor() actor: Actor, @Input(FileDiscoveryDto) dto: FileDiscoveryDto, @UploadedPart('File') file?: Express.Multer.File) {
    return discoveryReply(await this.discovery.fromFile(actor, dto, file));
  }

  @Get('getDiscoveryStatus')
  @Operation('GetDiscoveryStatus', Permission.PkiRead)
  async status(@CurrentActor() actor: Actor, @Input(DiscoveryStatusDto) dto: DiscoveryStatusDto) {
    return discoveryStatusReply(await this.discovery.status(actor, dto.jobId));
  }
}
