import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { reply, Reply } from '@app/http';
import { ResourceGroupsService } from '../resource-groups/resource-groups.service';
import { IntervalUnit, RotationSchedule, formatTime, nextRun } from './rotation-schedule';

interface ScheduleRow {
  enabled: boolean;
  interval_value: string;
  interval_unit: IntervalUnit;
  start_time: Date | null;
  retries: number;
  retry_interval_minutes: string;
  notify: string[];
  next_run: Date | null;
  last_run: Date | null;
}

/**
 * CONFIGURE PASSWORD ROTATION and its GET: a resource group's schedule. Who may change
 * the group (its creator or a super administrator) may schedule it; the rotations run as
 * the server itself (RotationScheduler).
 */
@Injectable()
export class RotationSchedulesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly groups: ResourceGroupsService,
  ) {}

  async current(orgId: number, groupId: number): Promise<RotationSchedule | undefined> {
    const [row]: ScheduleRow[] = await this.dataSource.query('SELECT * FROM rotation_schedules WHERE group_id = $1 AND org_id = $2', [groupId, orgId]);
    return row && toSchedule(row);
  }

  async configure(actor: Actor, groupId: number, parse: (current?: RotationSchedule) => RotationSchedule): Promise<Reply> {
    const group = await this.groups.findChangeable(actor, groupId);
    const schedule = parse(await this.current(actor.orgId, group.id));
    const next = schedule.enabled ? nextRun(schedule, new Date()) : null;
    await this.dataSource.transaction(async (m) => {
      await m.query(
        `INSERT INTO rotation_schedules (group_id, org_id, enabled, interval_value, interval_unit, start_time, retries, retry_interval_minutes, notify, next_run, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (group_id) DO UPDATE SET enabled = $3, interval_value = $4, interval_unit = $5, start_time = $6, retries = $7,
           retry_interval_minutes = $8, notify = $9, next_run = $10, updated_by = $11, updated_at = now()`,
        [group.id, actor.orgId, schedule.enabled, schedule.interval, schedule.unit, schedule.startTime ?? null, schedule.retries, schedule.retryIntervalMinutes, schedule.notify, next, actor.id],
      );
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.PasswordRotationConfigured,
          actor,
          target: group.name,
          description: schedule.enabled
            ? `Every ${schedule.interval} ${schedule.unit}, next ${formatTime(next)} UTC, ${schedule.retries} retries`
            : 'Rotation disabled',
        },
        m,
      );
    });
    return reply(`Password rotation of resource group ${group.name} ${schedule.enabled ? 'configured' : 'disabled'} successfully`, await this.details(actor, group.id));
  }

  async show(actor: Actor, groupId: number): Promise<Reply> {
    const group = await this.groups.findInOrganisation(actor, groupId);
    return reply(`Password rotation of resource group ${group.name} fetched successfully`, await this.details(actor, group.id));
  }

  private async details(actor: Actor, groupId: number): Promise<Record<string, string>> {
    const [row]: ScheduleRow[] = await this.dataSource.query('SELECT * FROM rotation_schedules WHERE group_id = $1 AND org_id = $2', [groupId, actor.orgId]);
    if (!row) return { ENABLED: 'false', INTERVAL: '', INTERVALUNIT: '', STARTTIME: '', RETRIES: '0', RETRYINTERVAL: '', NOTIFY: '', NEXTRUN: '', LASTRUN: '' };
    return {
      ENABLED: String(row.enabled),
      INTERVAL: String(Number(row.interval_value)),
      INTERVALUNIT: row.interval_unit,
      STARTTIME: formatTime(row.start_time),
      RETRIES: String(row.retries),
      RETRYINTERVAL: String(Number(row.retry_interval_minutes)),
      NOTIFY: row.notify.join(','),
      NEXTRUN: row.enabled ? formatTime(row.next_run) : '',
      LASTRUN: formatTime(row.last_run),
    };
  }
}

function toSchedule(row: ScheduleRow): RotationSchedule {
  return {
    enabled: row.enabled,
    interval: Number(row.interval_value),
    unit: row.interval_unit,
    startTime: row.start_time ?? undefined,
    retries: row.retries,
    retryIntervalMinutes: Number(row.retry_interval_minutes),
    notify: row.notify,
  };
}
