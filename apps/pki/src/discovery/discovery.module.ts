import { Module } from '@nestjs/common';
import { DiscoveryServiceModule } from '@app/pki/discovery-service';
import { DiscoveryController } from './discovery.controller';

@Module({ imports: [DiscoveryServiceModule], controllers: [DiscoveryController] })
export class DiscoveryModule {}
