import { Controller, Get } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Operation, reply } from '@app/http';
import { VulnerabilityCountService } from '@app/pki/discovery-service';

/** Spec op 42: counts over the scans stored by discovery. */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class VulnerabilitiesController {
  constructor(private readonly vulnerabilities: VulnerabilityCountService) {}

  @Get('getSSLVulnerabilityCount')
  @Operation('GetSSLVulnerabilityCount', Permission.PkiRead)
  async counts(@CurrentActor() actor: Actor) {
    return reply('SSL vulnerability count fetched successfully', { SSLVulnerabilityCount: await this.vulnerabilities.counts(actor.orgId) });
  }
}
