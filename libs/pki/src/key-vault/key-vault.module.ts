import { Module } from '@nestjs/common';
import { PkiSecretGateModule } from '@app/gate';
import { KeyVaultRepository } from './key-vault.repository';
import { KeyVaultService } from './key-vault.service';

@Module({ imports: [PkiSecretGateModule], providers: [KeyVaultService, KeyVaultRepository], exports: [KeyVaultService] })
export class KeyVaultServiceModule {}
