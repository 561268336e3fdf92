import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditEvent, SYSTEM_ACTOR_NAME } from './audit-event';

const AUDIT_COLUMNS = `org_id, category, operation, outcome, actor_id, actor_name, ip, client,
  resource_id, resource_name, account_id, account_name, target, reason, ticket_id, request_id, description`;

/**
 * The audit INSERT with its 17 parameters (auditValues) from $first on: a statement that
 * makes a change can carry its audit row itself (a data-modifying CTE before this).
 * `from` names a CTE of one row whose `resource_id` and `account_id` the row takes when
 * the event names none (ids the same statement creates).
 */
export function auditInsertFrom(first: number, from?: string): string {
  const slots = Array.from({ length: 17 }, (_, i) => `$${first + i}`);
  if (!from) return `INSERT INTO audit (${AUDIT_COLUMNS}) VALUES (${slots.join(',')}) RETURNING id`;
  slots[8] = `coalesce(${slots[8]}::int, ${from}.resource_id)`;
  slots[10] = `coalesce(${slots[10]}::int, ${from}.account_id)`;
  return `INSERT INTO audit (${AUDIT_COLUMNS}) SELECT ${slots.join(',')} FROM ${from} RETURNING id`;
}

export const AUDIT_INSERT = auditInsertFrom(1);

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

  /** Many rows in few statements (a directory import), in the caller's transaction like record(). */
  async recordMany(events: AuditEvent[], manager: EntityManager = this.dataSource.manager): Promise<void> {
    // 17 parameters a row; PostgreSQL takes at most 65,535 in one statement.
    for (let at = 0; at < events.length; at += 1000) {
      const chunk = events.slice(at, at + 1000);
      const rows = chunk.map((_, i) => `(${Array.from({ length: 17 }, (__, j) => `$${i * 17 + j + 1}`).join(',')})`);
      await manager.query(`INSERT INTO audit (${AUDIT_COLUMNS}) VALUES ${rows.join(',')}`, chunk.flatMap(auditValues));
    }
  }
}

export function auditValues(e: AuditEvent): unknown[] {
  return [
    e.orgId ?? e.actor?.orgId ?? null,
    e.category,
    e.operation,
    e.outcome ?? 'Success',
    e.actor?.id ?? null,
    // actor null is the server itself (a schedule, a sweep, a settlement); absent is nobody known.
    e.actor === null ? SYSTEM_ACTOR_NAME : (e.actor?.username ?? ''),
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
