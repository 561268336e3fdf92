import { Module } from '@nestjs/common';
import { DiscoveryServiceModule } from '../../../../libs/pki/src/discovery-service';
import { VulnerabilitiesController } from './vulnerabilities.controller';

@Module({ imports: [DiscoveryServiceModule], controllers: [VulnerabilitiesController] })
export class VulnerabilitiesModule {}
