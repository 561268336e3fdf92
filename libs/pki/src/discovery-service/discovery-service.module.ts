import { Module } from '@nestjs/common';
import { DiscoveryService } from './discovery.service';
import { JobRepository } from './job.repository';
import { VulnerabilityCountService } from './vulnerability-counts.service';

/** SSL discovery, background jobs and vulnerability counts, shared by both services. */
@Module({
  providers: [DiscoveryService, JobRepository, VulnerabilityCountService],
  exports: [DiscoveryService, VulnerabilityCountService],
})
export class DiscoveryServiceModule {}
