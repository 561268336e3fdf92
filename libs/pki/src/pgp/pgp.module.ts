import { Module } from '@nestjs/common';
import { PkiSecretGateModule } from '@app/gate';
import { PgpKeysService } from './pgp-keys.service';

@Module({ imports: [PkiSecretGateModule], providers: [PgpKeysService], exports: [PgpKeysService] })
export class PgpServiceModule {}
