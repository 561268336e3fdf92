import { Module } from '@nestjs/common';
import { PgpKeysService } from './pgp-keys.service';

@Module({ providers: [PgpKeysService], exports: [PgpKeysService] })
export class PgpServiceModule {}
