import { Controller, Get } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { AuditQueryDto } from './audit.dto';
import { AuditReader } from './audit-reader.service';

@ApiLayout('vaultA')
@Controller('restapi/json/v1/audit')
export class AuditController {
  constructor(private readonly reader: AuditReader) {}

  @Get()
  @Operation('GET_AUDIT', Permission.AuditRead)
  page(@CurrentActor() actor: Actor, @Input(AuditQueryDto) query: AuditQueryDto) {
    return this.reader.page(actor, query);
  }
}
