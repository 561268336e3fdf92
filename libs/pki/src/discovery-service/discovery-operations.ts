import { Controller, Get, Post, Type } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Layout, Operation, Reply } from '@app/http';
import { hostsAtTopLevel } from './discovery-layout';
import { DiscoveryStatusDto, RangeDiscoveryDto, SingleDiscoveryDto } from './discovery-input';
import { discoveryReply, discoveryStatusReply } from './discovery-reply';
import { DiscoveryService } from './discovery.service';

/** How one port presents the discovery answers both serve. */
export interface DiscoveryPresentation {
  layout: Layout;
  present(answer: Reply): Reply;
}

export const PKI_DISCOVERY_PRESENTATION: DiscoveryPresentation = { layout: 'pki', present: (answer) => answer };

/** The vault's prefix B: the per-host entries at the top level of the answer too, as PAM360's clients read them (hostsAtTopLevel). */
export const VAULT_DISCOVERY_PRESENTATION: DiscoveryPresentation = { layout: 'vaultB', present: hostsAtTopLevel };

/**
 * The SSL discovery operations served on both ports (spec ops 25 and 26, and our job status),
 * declared once: each app mounts the controller made for its presentation.
 */
export function discoveryOperations(p: DiscoveryPresentation): Type<unknown> {
  @ApiLayout(p.layout)
  @Controller('api/pki/restapi')
  class DiscoveryOperations {
    constructor(readonly discovery: DiscoveryService) {}

    @Post('sslCertSingleDiscovery')
    @Operation('Get SSL Discovery', Permission.PkiManage)
    async single(@CurrentActor() actor: Actor, @Input(SingleDiscoveryDto) dto: SingleDiscoveryDto) {
      return p.present(discoveryReply(await this.discovery.single(actor, dto)));
    }

    @Post('sslCertRangeDiscovery')
    @Operation('Get SSL Discovery', Permission.PkiManage)
    async range(@CurrentActor() actor: Actor, @Input(RangeDiscoveryDto) dto: RangeDiscoveryDto) {
      return p.present(discoveryReply(await this.discovery.range(actor, dto)));
    }

    @Get('getDiscoveryStatus')
    @Operation('GetDiscoveryStatus', Permission.PkiRead)
    async status(@CurrentActor() actor: Actor, @Input(DiscoveryStatusDto) dto: DiscoveryStatusDto) {
      return p.present(discoveryStatusReply(await this.discovery.status(actor, dto.jobId)));
    }
  }
  return DiscoveryOperations;
}
