import { Controller, Get } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { PkiAuditQueryDto } from './pki-audit.dto';
import { PkiAuditService } from './pki-audit.service';

@ApiLayout('pki')
@Controller('api/pki/restapi')
export class PkiAuditController {
  constructor(private readonly audit: PkiAuditService) {}

  @Get('getAuditDetails')
  @Operation('GetAllAudits', Permission.AuditRead)
  list(@CurrentActor() actor: Actor, @Input(PkiAuditQueryDto) query: PkiAuditQueryDto) {
    return this.audit.list(actor, query);
  }
}
