import { Global, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Keyring } from './keyring';
import { loadMasterKey } from './master-key';

@Global()
@Module({
  providers: [
    {
      provide: Keyring,
      inject: [DataSource, APP_CONFIG],
      useFactory: async (dataSource: DataSource, config: AppConfig) => {
        const keyring = new Keyring(dataSource, loadMasterKey(config));
        await keyring.load();
        return keyring;
      },
    },
  ],
  exports: [Keyring],
})
export class CryptoModule {}
