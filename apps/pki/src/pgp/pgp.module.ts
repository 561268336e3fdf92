import { Module } from '@nestjs/common';
import { PgpServiceModule } from '../../../../libs/pki/src/pgp';
import { PgpController } from './pgp.controller';

@Module({ imports: [PgpServiceModule], controllers: [PgpController] })
export class PgpModule {}
