import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, countAuditRows } from '@app/audit';
import { AppError, listReply, Reply } from '@app/http';
import { auditTime } from '../common/format';
import { AuditQueryDto } from './audit.dto';
import { auditRange } from './audit-range';
import { containsPattern } from '../common/paging';

const DEFAULT_LIMIT = 100;

// The page runs on the (org_id, category, created_at, id) index: its ids come from the index
// alone (newest first), then only those rows are read. totalRows comes from maintained counts.
const FILTER = `org_id = $1 AND category = $2 AND created_at >= $3 AND created_at < $4
  AND ($8::text IS NULL OR actor_name = $8) AND ($9::text IS NULL OR operation = $9) AND ($10::text IS NULL OR resource_name ILIKE $10)`;
// A filtered page has no maintained count: it is counted, up to this many.
const COUNT_CAP = 10_000;
const COUNT = `SELECT count(*)::int AS n FROM (SELECT 1 FROM audit WHERE ${FILTER.replace(/\$8/g, '$5').replace(/\$9/g, '$6').replace(/\$10/g, '$7')} LIMIT ${COUNT_CAP}) c`;
const PAGE = `WITH page AS (
    SELECT id FROM audit WHERE ${FILTER} AND ($7::bigint IS NULL OR (created_at, id) < (SELECT b.created_at, b.id FROM audit b WHERE b.id = $7 AND b.org_id = $1))
    ORDER BY created_at DESC, id DESC OFFSET $5 LIMIT $6)
  SELECT a.id::text AS id, a.created_at, a.resource_name, a.account_name, a.operation, a.outcome, a.actor_name, a.ip, a.client,
         a.target, a.reason, a.description
  FROM audit a JOIN page USING (id) ORDER BY a.created_at DESC, a.id DESC`;

/** GET_AUDIT (op 51): one organisation's audit trail of one type, newest first. */
@Injectable()
export class AuditReader {
  constructor(private readonly dataSource: DataSource) {}

  async page(actor: Actor, query: AuditQueryDto): Promise<Reply> {
    const range = auditRange(query.DURATION, query.FROMDATE, query.TODATE);
    const category = query.AUDITTYPE ?? 'Resource';
    const before = query.BEFOREID?.trim() ? query.BEFOREID.trim() : null;
    if (before !== null && !/^\d{1,18}$/.test(before)) throw AppError.invalid('BEFOREID must be an AUDITID');
    const bounds = [actor.orgId, category, range.from ?? '-infinity', range.to ?? 'infinity'];
    const offset = before === null ? (query.STARTINDEX ?? 0) : 0;
    const filters = [query.USERNAME?.trim() || null, query.OPERATIONTYPE?.trim() || null, query.RESOURCENAME?.trim() ? containsPattern(query.RESOURCENAME.trim()) : null];
    const filtered = filters.some((f) => f !== null);
    const [rows, total] = await Promise.all([
      this.dataSource.query(PAGE, [...bounds, offset, query.LIMIT ?? DEFAULT_LIMIT, before, ...filters]),
      filtered
        ? this.dataSource.query(COUNT, [...bounds, ...filters]).then(([r]) => r.n as number)
        : countAuditRows(this.dataSource, actor.orgId, category, range.from, range.to),
    ]);
    return listReply('Audit details fetched successfully', rows.map(category === 'User' ? userEntry : resourceEntry), total);
  }
}

type AuditRow = Record<string, string> & { created_at: Date };

function entry(row: AuditRow, name: string): Record<string, string> {
  return {
    AUDITID: row.id,
    RESOURCENAME: row.resource_name,
    ACCOUNTNAME: row.account_name,
    OPERATIONTYPE: row.operation,
    OPERATEDBY: row.actor_name,
    IPADDRESS: row.ip,
    USERNAME: row.actor_name,
    LASTACCESSEDTIME: auditTime(row.created_at),
    REASON: row.reason || row.description,
    NAME: name,
    CLIENT: row.client,
    STATUS: row.outcome,
  };
}

function resourceEntry(row: AuditRow): Record<string, string> {
  return entry(row, row.resource_name || row.target);
}

function userEntry(row: AuditRow): Record<string, string> {
  return entry(row, row.target);
}
