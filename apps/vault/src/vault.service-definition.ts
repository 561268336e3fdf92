import { ServiceDefinition } from '@app/server';
import { VaultModule } from './vault.module';

export const VAULT_SERVICE: ServiceDefinition = {
  name: 'vault',
  port: (config) => config.vaultPort,
  module: (config, url) => VaultModule.forRoot(config, url),
};
