import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { ExpiryNoticesModule } from '@app/pki/expiry-notices';
import { CoreModule, HealthController } from '@app/server';
import { PkiAuditModule } from './audit/audit.module';
import { PkiMetrics } from './pki-metrics';
import { CertificatesModule } from './certificates/certificates.module';
import { DiscoveryModule } from './discovery/discovery.module';
import { KeyVaultModule } from './key-vault/key-vault.module';
import { PgpModule } from './pgp/pgp.module';
import { UnmanagedModule } from './unmanaged/unmanaged.module';
import { AcmeModule } from './acme/acme.module';
import { VulnerabilitiesModule } from './vulnerabilities/vulnerabilities.module';
import { SshKeysModule } from './ssh-keys/ssh-keys.module';
import { SshResourcesModule } from './ssh-resources/ssh-resources.module';

@Module({
  controllers: [HealthController],
  providers: [PkiMetrics],
})
export class PkiModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return { module: PkiModule, imports: [CoreModule.forRoot(config, databaseUrl, 'pki'), SshKeysModule, SshResourcesModule, DiscoveryModule, VulnerabilitiesModule, KeyVaultModule, PgpModule, UnmanagedModule, PkiAuditModule, CertificatesModule, AcmeModule, ExpiryNoticesModule] };
  }
}
