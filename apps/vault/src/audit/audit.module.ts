import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';
import { AuditReader } from './audit-reader.service';

/** GET_AUDIT (op 51). Sealing runs in the global AuditModule (libs/audit). */
@Module({ controllers: [AuditController], providers: [AuditReader], exports: [AuditReader] })
export class VaultAuditModule {}
