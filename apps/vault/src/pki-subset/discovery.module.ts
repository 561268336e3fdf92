import { Module } from '@nestjs/common';
import { DiscoveryServiceModule } from '@app/pki/discovery-service';
import { VaultDiscoveryController } from './discovery.controller';

@Module({ imports: [DiscoveryServiceModule], controllers: [VaultDiscoveryController] })
export class VaultDiscoveryModule {}
