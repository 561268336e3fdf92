import { Module } from '@nestjs/common';
import { PkiSecretGate } from './pki-secret-gate';

/** Import it where a pki secret is exported; AuditWriter comes from the global AuditModule. */
@Module({ providers: [PkiSecretGate], exports: [PkiSecretGate] })
export class PkiSecretGateModule {}
