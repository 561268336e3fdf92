import { Module } from '@nestjs/common';
import { CertServiceModule } from '@app/pki/cert-service';
import { CrlController } from '../crl/crl.controller';
import { OcspController } from '../crl/ocsp.controller';
import { CsrsController } from '../csrs/csrs.controller';
import { AuthoritiesController } from './authorities.controller';
import { CertificatesController, PkiCertificateOperations } from './certificates.controller';

/** Certificates, CSRs, our CAs, deployment and the public CRLs (issue 7). */
@Module({
  imports: [CertServiceModule],
  controllers: [PkiCertificateOperations, CertificatesController, CsrsController, AuthoritiesController, CrlController, OcspController],
})
export class CertificatesModule {}
