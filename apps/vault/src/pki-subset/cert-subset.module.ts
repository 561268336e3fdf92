import { Module } from '@nestjs/common';
import { CertServiceModule } from '@app/pki/cert-service';
import { VaultCertificateOperations, VaultCertificatesController } from './cert-subset.controller';

@Module({ imports: [CertServiceModule], controllers: [VaultCertificateOperations, VaultCertificatesController] })
export class VaultCertificatesModule {}
