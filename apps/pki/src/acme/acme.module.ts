import { Module } from '@nestjs/common';
import { AcmeServiceModule } from '@app/pki/acme-service';
import { AcmeAccountController } from './acme-account.controller';
import { AcmeAdminController } from './acme-admin.controller';
import { AcmeDirectoryController } from './acme-directory.controller';
import { AcmeHttp } from './acme-http';
import { AcmeOrderController } from './acme-order.controller';
import { AcmeProblemFilter } from './acme-problem.filter';

@Module({
  imports: [AcmeServiceModule],
  controllers: [AcmeDirectoryController, AcmeAccountController, AcmeOrderController, AcmeAdminController],
  providers: [AcmeHttp, AcmeProblemFilter],
})
export class AcmeModule {}
