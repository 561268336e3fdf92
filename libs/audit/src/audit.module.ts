import { Global, Module } from '@nestjs/common';
import { AuditSealer } from './audit-sealer';
import { AuditWriter } from './audit-writer';

@Global()
@Module({ providers: [AuditWriter, AuditSealer], exports: [AuditWriter, AuditSealer] })
export class AuditModule {}
