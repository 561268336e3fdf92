import { Module } from '@nestjs/common';
import { DiscoveryServiceModule } from '@app/pki/discovery-service';
import { VulnerabilitiesController } from './vulnerabilities.controller';

@Module({ imports: [DiscoveryServiceModule], controllers: [VulnerabilitiesController] })
export class VulnerabilitiesModule {}
