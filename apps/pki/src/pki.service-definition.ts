import { ServiceDefinition } from '@app/server';
import { PkiModule } from './pki.module';

export const PKI_SERVICE: ServiceDefinition = {
  name: 'pki',
  port: (config) => config.pkiPort,
  module: (config, url) => PkiModule.forRoot(config, url),
};
