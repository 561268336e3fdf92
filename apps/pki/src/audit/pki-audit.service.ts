import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, countAuditRows } from '@app/audit';
import { listReply, Reply } from '@app/http';
import { pkiTime } from '@app/pki/key-vault';
import { PkiAuditQueryDto } from './pki-audit.dto';

const DEFAULT_LIMIT = 1000;

interface AuditRow {
  id: string;
  operation: string;
  description: string;
  target: string;
  actor_name: string;
  created_at: Date;
}

/** getAuditDetails (spec op 41): the organisation's key manager audit trail, newest first. */
@Injectable()
export class PkiAuditService {
  constructor(private readonly dataSource: DataSource) {}

  async list(actor: Actor, query: PkiAuditQueryDto): Promise<Reply> {
    const limit = query.LIMIT ?? DEFAULT_LIMIT;
    const offset = Math.max(0, (query.STARTINDEX ?? 1) - 1);
    const [rows, total] = await Promise.all([
      this.dataSource.query(
        `SELECT id, operation, description, target, actor_name, created_at FROM audit
         WHERE org_id = $1 AND category = 'Pki' ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
        [actor.orgId, limit, offset],
      ) as Promise<AuditRow[]>,
      countAuditRows(this.dataSource, actor.orgId, 'Pki', null, null),
    ]);
    return listReply('Audit details fetched successfully', rows.map(auditRecord), total);
  }
}

function auditRecord(row: AuditRow): Record<string, unknown> {
  return {
    OPERATION: row.operation,
    DESCRIPTION: row.description || row.target,
    AUDITID: Number(row.id),
    USERNAME: row.actor_name,
    TIME: pkiTime(row.created_at),
  };
}
