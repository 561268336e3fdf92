import { Module } from '@nestjs/common';
import { PkiSecretGateModule } from '@app/gate';
import { SshServiceModule } from '@app/ssh/service';
import { AuthorityRepository } from './authority.repository';
import { CaBootstrap } from './ca-bootstrap';
import { CertificateAuthoritiesService } from './certificate-authorities.service';
import { CertificateBookkeepingService } from './certificate-bookkeeping.service';
import { CertificateExportService } from './certificate-export.service';
import { CertificateRepository } from './certificate.repository';
import { CertificateSecrets } from './certificate-secrets';
import { CertificatesService } from './certificates.service';
import { CrlService } from './crl.service';
import { CsrRepository } from './csr.repository';
import { CsrService } from './csr.service';
import { DeploymentRepository } from './deployment.repository';
import { DeploymentService } from './deployment.service';
import { OcspResponders } from './ocsp-responders';
import { OcspService } from './ocsp.service';
import { RevocationService } from './revocation.service';
import { SigningService } from './signing.service';

const SERVICES = [
  CertificateAuthoritiesService,
  CertificatesService,
  CertificateBookkeepingService,
  CertificateExportService,
  CsrService,
  SigningService,
  RevocationService,
  CrlService,
  OcspService,
  DeploymentService,
];

/** The certificate domain for both presentations (pki service and the vault's prefix B). */
@Module({
  imports: [SshServiceModule, PkiSecretGateModule],
  providers: [...SERVICES, AuthorityRepository, CertificateRepository, CsrRepository, DeploymentRepository, CertificateSecrets, CaBootstrap, OcspResponders],
  exports: SERVICES,
})
export class CertServiceModule {}
