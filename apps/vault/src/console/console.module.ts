import { Module } from '@nestjs/common';
import { CertServiceModule } from '@app/pki/cert-service';
import { VaultAuditModule } from '../audit/audit.module';
import { PasswordRequestsModule } from '../password-requests/password-requests.module';
import { RemoteResetModule } from '../remote-reset/remote-reset.module';
import { ResourcesModule } from '../resources/resources.module';
import { UsersModule } from '../users/users.module';
import { ConsoleAdminController } from './console-admin.controller';
import { ConsoleAuth } from './console-auth';
import { ConsoleController } from './console.controller';
import { ConsoleReads } from './console-reads';
import { ConsoleRequests } from './console-requests';
import { ConsoleSessions } from './console-sessions';
import { ConsoleSignInController } from './console-sign-in.controller';

/** The web console (issue 36, docs/console.md): pages over the services the API calls. */
@Module({
  imports: [ResourcesModule, PasswordRequestsModule, VaultAuditModule, CertServiceModule, RemoteResetModule, UsersModule],
  // The administrators' routes first: /console/resources/new before /console/resources/:rid.
  controllers: [ConsoleSignInController, ConsoleAdminController, ConsoleController],
  providers: [ConsoleSessions, ConsoleAuth, ConsoleReads, ConsoleRequests],
})
export class ConsoleModule {}
