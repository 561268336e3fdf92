import { Module } from '@nestjs/common';
import { CertServiceModule } from '@app/pki/cert-service';
import { VaultAuditModule } from '../audit/audit.module';
import { PasswordRequestsModule } from '../password-requests/password-requests.module';
import { ResourcesModule } from '../resources/resources.module';
import { RemoteResetModule } from '../remote-reset/remote-reset.module';
import { UsersModule } from '../users/users.module';
import { ConsoleAuth } from './console-auth';
import { ConsoleController } from './console.controller';
import { ConsoleReads } from './console-reads';
import { ConsoleSessions } from './console-sessions';

/** The web console (issue 36, docs/console.md): pages over the services the API calls. */
@Module({
  imports: [ResourcesModule, PasswordRequestsModule, VaultAuditModule, CertServiceModule, RemoteResetModule, UsersModule],
  controllers: [ConsoleController],
  providers: [ConsoleSessions, ConsoleAuth, ConsoleReads],
})
export class ConsoleModule {}
