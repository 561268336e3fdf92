import { Module } from '@nestjs/common';
import { KeyVaultServiceModule } from '../../../../libs/pki/src/key-vault';
import { KeyVaultController } from './key-vault.controller';

@Module({ imports: [KeyVaultServiceModule], controllers: [KeyVaultController] })
export class KeyVaultModule {}
