import { Controller, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import {
  DiscoveryService,
  DiscoveryStatusDto,
  discoveryReply,
  discoveryStatusReply,
  RangeDiscoveryDto,
  SingleDiscoveryDto,
} from '@app/pki/discovery-service';
import { hostsAtTopLevel } from './discovery-layout';

/**
 * docs/api/vault.md, prefix B: the same discovery as the pki service; the per-host entries
 * sit at the top level of the answer, and under `details` too (hostsAtTopLevel).
 */
@ApiLayout('vaultB')
@Controller('api/pki/restapi')
export class VaultDiscoveryController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Post('sslCertSingleDiscovery')
  @Operation('Get SSL Discovery', Permission.PkiManage)
  async single(@CurrentActor() actor: Actor, @Input(SingleDiscoveryDto) dto: SingleDiscoveryDto) {
    return hostsAtTopLevel(discoveryReply(await this.discovery.single(actor, dto)));
  }

  @Post('sslCertRangeDiscovery')
  @Operation('Get SSL Discovery', Permission.PkiManage)
  async range(@CurrentActor() actor: Actor, @Input(RangeDiscoveryDto) dto: RangeDiscoveryDto) {
    return hostsAtTopLevel(discoveryReply(await this.discovery.range(actor, dto)));
  }

  @Get('getDiscoveryStatus')
  @Operation('GetDiscoveryStatus', Permission.PkiRead)
  async status(@CurrentActor() actor: Actor, @Input(DiscoveryStatusDto) dto: DiscoveryStatusDto) {
    return hostsAtTopLevel(discoveryStatusReply(await this.discovery.status(actor, dto.jobId)));
  }
}
