import { Module } from '@nestjs/common';
import { DiscoveryServiceModule } from '../../../../libs/pki/src/discovery-service';
import { DiscoveryController } from './discovery.controller';

@Module({ imports: [DiscoveryServiceModule], controllers: [DiscoveryController] })
export class DiscoveryModule {}
