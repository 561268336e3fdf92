import { Module } from '@nestjs/common';
import { DiscoveryServiceModule } from '../../../../libs/pki/src/discovery-service';
import { VaultDiscoveryController } from './discovery.controller';

@Module({ imports: [DiscoveryServiceModule], controllers: [VaultDiscoveryController] })
export class VaultDiscoveryModule {}
