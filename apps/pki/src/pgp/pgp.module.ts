import { Module } from '@nestjs/common';
import { PgpServiceModule } from '@app/pki/pgp';
import { PgpController } from './pgp.controller';

@Module({ imports: [PgpServiceModule], controllers: [PgpController] })
export class PgpModule {}
