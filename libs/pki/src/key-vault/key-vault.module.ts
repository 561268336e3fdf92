import { Module } from '@nestjs/common';
import { KeyVaultRepository } from './key-vault.repository';
import { KeyVaultService } from './key-vault.service';

@Module({ providers: [KeyVaultService, KeyVaultRepository], exports: [KeyVaultService] })
export class KeyVaultServiceModule {}
