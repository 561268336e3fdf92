import { Controller, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, UploadedPart } from '@app/http';
import { discoveryOperations, discoveryReply, DiscoveryService, FileDiscoveryDto, PKI_DISCOVERY_PRESENTATION } from '@app/pki/discovery-service';

/** The discovery operations both ports serve, as this port presents them (docs/api/pki.md). */
export const PkiDiscoveryOperations = discoveryOperations(PKI_DISCOVERY_PRESENTATION);

/** File-based SSL discovery (spec op 27), which only the key manager serves. */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class DiscoveryController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Post('sslCertFileBasedDiscovery')
  @Operation('Get SSL Discovery', Permission.PkiManage)
  async fromFile(@CurrentActor() actor: Actor, @Input(FileDiscoveryDto) dto: FileDiscoveryDto, @UploadedPart('File') file?: Express.Multer.File) {
    return discoveryReply(await this.discovery.fromFile(actor, dto, file));
  }
}
