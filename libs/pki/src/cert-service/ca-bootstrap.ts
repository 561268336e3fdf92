import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { CertificateAuthoritiesService } from './certificate-authorities.service';

/** First start: the root CA and the issuing CA exist before either service takes requests. */
@Injectable()
export class CaBootstrap implements OnApplicationBootstrap {
  constructor(private readonly cas: CertificateAuthoritiesService) {}

  onApplicationBootstrap(): Promise<void> {
    return this.cas.ensureDefaults();
  }
}
