import { Module } from '@nestjs/common';
import { KeyVaultServiceModule } from '@app/pki/key-vault';
import { KeyVaultController } from './key-vault.controller';

@Module({ imports: [KeyVaultServiceModule], controllers: [KeyVaultController] })
export class KeyVaultModule {}
