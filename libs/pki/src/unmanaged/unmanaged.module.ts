import { Module } from '@nestjs/common';
import { UnmanagedCertificatesService } from './unmanaged-certificates.service';

@Module({ providers: [UnmanagedCertificatesService], exports: [UnmanagedCertificatesService] })
export class UnmanagedServiceModule {}
