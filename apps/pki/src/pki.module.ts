import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { CoreModule, HealthController } from '@app/server';
import { SshKeysModule } from './ssh-keys/ssh-keys.module';
import { SshResourcesModule } from './ssh-resources/ssh-resources.module';

@Module({
  controllers: [HealthController],
  providers: [],
})
export class PkiModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return { module: PkiModule, imports: [CoreModule.forRoot(config, databaseUrl, 'pki'), SshKeysModule, SshResourcesModule] };
  }
}
