import { Module } from '@nestjs/common';
import { PkiSecretGateModule } from '@app/gate';
import { SshAssociationRepository } from './ssh-association.repository';
import { SshAssociationsService } from './ssh-associations.service';
import { SshDiscoveryService } from './ssh-discovery.service';
import { SshHostKeys } from '..';
import { SshKeyPool } from './ssh-key-pool';
import { SshKeyRepository } from './ssh-key.repository';
import { SshKeysService } from './ssh-keys.service';
import { SshOperations } from './ssh-operations';
import { SshResourceRepository } from './ssh-resource.repository';
import { SshResourcesService } from './ssh-resources.service';

/** The SSH domain with its I/O, for both apps (each app gets its own RSA pool). */
@Module({
  imports: [PkiSecretGateModule],
  providers: [
    SshKeyPool, SshKeyRepository, SshResourceRepository, SshAssociationRepository,
    SshKeysService, SshResourcesService, SshAssociationsService, SshDiscoveryService, SshOperations, SshHostKeys,
  ],
  exports: [SshHostKeys, SshKeysService, SshResourcesService, SshAssociationsService, SshDiscoveryService, SshOperations],
})
export class SshServiceModule {}
