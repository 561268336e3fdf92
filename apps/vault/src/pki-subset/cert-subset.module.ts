import { Module } from '@nestjs/common';
import { CertServiceModule } from '@app/pki/cert-service';
import { VaultCertificatesController } from './cert-subset.controller';

@Module({ imports: [CertServiceModule], controllers: [VaultCertificatesController] })
export class VaultCertificatesModule {}
