import { Module } from '@nestjs/common';
import { PkiAuditController } from './audit.controller';
import { PkiAuditService } from './pki-audit.service';

@Module({ controllers: [PkiAuditController], providers: [PkiAuditService] })
export class PkiAuditModule {}
