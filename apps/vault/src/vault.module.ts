import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { CoreModule, HealthController } from '@app/server';
import { PasswordRequestsModule } from './password-requests/password-requests.module';
import { VaultSshModule } from './pki-subset/ssh.module';
import { VaultCertificatesModule } from './pki-subset/cert-subset.module';
import { VaultDiscoveryModule } from './pki-subset/discovery.module';
import { VaultAuditModule } from './audit/audit.module';
import { ResourceGroupsModule } from './resource-groups/resource-groups.module';
import { RotationModule } from './rotation/rotation.module';
import { BackupsModule } from './backups/backups.module';
import { ConsoleModule } from './console/console.module';
import { DirectoryModule } from './directory/directory.module';
import { RotationEventsModule } from './rotation/rotation-events.module';
import { RemoteResetModule } from './remote-reset/remote-reset.module';
import { ResourcesModule } from './resources/resources.module';
import { UsersModule } from './users/users.module';
import { VaultMetrics } from './vault-metrics';

@Module({ controllers: [HealthController], providers: [VaultMetrics] })
export class VaultModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: VaultModule,
      imports: [CoreModule.forRoot(config, databaseUrl, 'vaultA'), ResourcesModule, RemoteResetModule, PasswordRequestsModule, VaultSshModule, UsersModule, ResourceGroupsModule, RotationEventsModule, RotationModule, BackupsModule, DirectoryModule, ConsoleModule, VaultAuditModule, VaultDiscoveryModule, VaultCertificatesModule],
    };
  }
}
