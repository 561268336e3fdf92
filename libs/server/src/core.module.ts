import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, Reflector } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { Authenticator, ORG_HEADER_SCOPE, TokenGuard } from '@app/auth';
import { AppConfig, ConfigModule } from '@app/config';
import { CryptoModule } from '@app/crypto';
import { GateModule } from '@app/gate';
import { EnvelopeExceptionFilter, EnvelopeInterceptor, Layout, LeanRoutes } from '@app/http';
import { Drain, DrainingHealthRoute, MetricsController, MetricsService, SERVICE_NAME } from '@app/observability';
import { dataSourceOptions } from '@app/persistence';
import { DEFAULT_LAYOUT, OpenApiController } from './openapi';

/** What every service shares: config, database, keyring, audit, the secret gate, the guard, the envelope and metrics. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, databaseUrl: string, defaultLayout: Layout): DynamicModule {
    return {
      module: CoreModule,
      global: true,
      controllers: [MetricsController, OpenApiController],
      imports: [
        ConfigModule.forRoot(config),
        // Each service is its own Nest application with its own default data source; forRoot
        // would record the name in a process-wide registry and warn about `npm start`'s second
        // service as a duplicate. The async form registers no unnamed data source.
        TypeOrmModule.forRootAsync({
          useFactory: () =>
            dataSourceOptions(databaseUrl, config.dbPoolSize, { connectTimeoutMs: config.dbConnectTimeoutMs, statementTimeoutMs: config.dbStatementTimeoutMs }),
        }),
        CryptoModule,
        AuditModule,
        GateModule,
      ],
      providers: [
        Authenticator,
        // The vault takes PAM360's orgName header on every operation; the key manager has no such header.
        { provide: ORG_HEADER_SCOPE, useValue: defaultLayout !== 'pki' },
        LeanRoutes,
        { provide: SERVICE_NAME, useValue: defaultLayout === 'pki' ? 'pki' : 'vault' },
        MetricsService,
        Drain,
        DrainingHealthRoute,
        { provide: DEFAULT_LAYOUT, useValue: defaultLayout },
        { provide: APP_GUARD, useClass: TokenGuard },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        {
          provide: APP_FILTER,
          inject: [Reflector],
          useFactory: (reflector: Reflector) => new EnvelopeExceptionFilter(reflector, defaultLayout),
        },
      ],
      exports: [Authenticator, LeanRoutes, MetricsService, Drain],
    };
  }
}
