import { Module } from '@nestjs/common';
import { CertServiceModule } from '../cert-service';
import { AcmeAccountsService } from './acme-accounts.service';
import { AcmeAdminService } from './acme-admin.service';
import { AcmeCertificatesService } from './acme-certificates.service';
import { AcmeChallengesService } from './acme-challenges.service';
import { AcmeOrdersService } from './acme-orders.service';
import { AcmeRepository } from './acme.repository';
import { AcmeVerifier } from './acme-verifier';
import { ChallengeValidator } from './challenge-validator';
import { NonceStore } from './nonces';

const SERVICES = [AcmeAccountsService, AcmeOrdersService, AcmeChallengesService, AcmeCertificatesService, AcmeAdminService, AcmeVerifier, NonceStore];

/** The ACME server (RFC 8555) over our CAs. */
@Module({
  imports: [CertServiceModule],
  providers: [...SERVICES, AcmeRepository, ChallengeValidator],
  exports: SERVICES,
})
export class AcmeServiceModule {}
