import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditEvent } from './audit-event';

export const AUDIT_INSERT = `INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, client,
  resource_id, resource_name, account_id, account_name, target, reason, ticket_id, request_id, description)
  VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17) RETURNING id`;

/**
 * Writes audit rows. Pass the EntityManager of the transaction that makes the change:
 * the row commits with it or not at all, and a failed audit write fails the request.
 */
@Injectable()
export class AuditWriter {
  constructor(private readonly dataSource: DataSource) {}

  async record(event: AuditEvent, manager: EntityManager = this.dataSource.manager): Promise<string> {
    const rows: { id: string }[] = await manager.query(AUDIT_INSERT, auditValues(event));
    return rows[0].id;
  }
}

export function auditValues(e: AuditEvent): unknown[] {
  return [
    e.orgId ?? e.actor?.orgId ?? null,
    e.category,
    e.operation,
    e.outcome ?? 'Success',
    e.actor?.id ?? null,
    e.actor?.username ?? '',
    e.actor?.ip ?? '',
    (e.actor?.client ?? '').slice(0, 200),
    e.resourceId ?? null,
    e.resourceName ?? '',
    e.accountId ?? null,
    e.accountName ?? '',
    e.target ?? '',
    (e.reason ?? '').slice(0, 1000),
    (e.ticketId ?? '').slice(0, 200),
    e.requestId ?? null,
    (e.description ?? '').slice(0, 2000),
  ];
}
