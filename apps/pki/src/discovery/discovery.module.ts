import { Module } from '@nestjs/common';
import { DiscoveryServiceModule } from '@app/pki/discovery-service';
import { DiscoveryController, PkiDiscoveryOperations } from './discovery.controller';

@Module({ imports: [DiscoveryServiceModule], controllers: [PkiDiscoveryOperations, DiscoveryController] })
export class DiscoveryModule {}
