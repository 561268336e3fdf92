import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** pending: interrupted by a service stop, waiting for an instance to resume it. */
export type JobStatus = 'running' | 'pending' | 'done' | 'failed';

export interface JobRow {
  id: number;
  kind: string;
  status: JobStatus;
  total: number;
  done: number;
  result: Record<string, unknown>;
  created_at: Date;
  /** Seconds since the worker last wrote progress (its heartbeat). */
  idle_seconds: number;
}

/** Background jobs (the `jobs` table), always addressed within an organisation. */
@Injectable()
export class JobRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The plan (what to do, for whom) stays in the result until the job ends, so another instance can resume it. */
  async create(orgId: number, kind: string, total: number, createdBy: number, plan: unknown): Promise<number> {
    const [row] = await this.dataSource.query(
      `INSERT INTO jobs (org_id, kind, status, total, done, result, created_by) VALUES ($1, $2, 'running', $3, 0, $5, $4) RETURNING id`,
      [orgId, kind, total, createdBy, { plan }],
    );
    return row.id;
  }

  /** A stopping service hands its job back: any instance may resume it. */
  async suspend(orgId: number, id: number): Promise<void> {
    await this.dataSource.query(`UPDATE jobs SET status = 'pending', updated_at = now() WHERE org_id = $1 AND id = $2 AND status = 'running'`, [orgId, id]);
  }

  /**
   * Claims one job to resume: handed back by a stopping service, or running with no heartbeat
   * for staleSeconds (its instance died). One instance gets each (SKIP LOCKED).
   */
  async claimOrphan(kind: string, staleSeconds: number): Promise<{ id: number; org_id: number; total: number; plan: unknown } | undefined> {
    // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
    const [rows] = await this.dataSource.query(
      `UPDATE jobs SET status = 'running', done = 0, updated_at = now()
       WHERE id = (SELECT id FROM jobs WHERE kind = $1 AND result ? 'plan'
                     AND (status = 'pending' OR (status = 'running' AND updated_at < now() - make_interval(secs => $2)))
                   ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, org_id, total, result -> 'plan' AS plan`,
      [kind, staleSeconds],
    );
    return rows[0];
  }

  /** Finished jobs are kept for a week so their results can still be fetched, then dropped. */
  async pruneFinished(kind: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM jobs WHERE kind = $1 AND status <> 'running' AND updated_at < now() - interval '7 days'`, [kind]);
  }

  /** Also the heartbeat: updated_at tells readers the worker is alive. */
  async progress(orgId: number, id: number, done: number, result: Record<string, unknown>): Promise<void> {
    await this.dataSource.query(`UPDATE jobs SET done = $3, result = result || $4::jsonb, updated_at = now() WHERE org_id = $1 AND id = $2 AND status = 'running'`, [
      orgId,
      id,
      done,
      result,
    ]);
  }

  async finish(orgId: number, id: number, status: 'done' | 'failed', done: number, result: Record<string, unknown>): Promise<void> {
    await this.dataSource.query(`UPDATE jobs SET status = $3, done = $4, result = $5, updated_at = now() WHERE org_id = $1 AND id = $2`, [
      orgId,
      id,
      status,
      done,
      result,
    ]);
  }

  async findInOrg(orgId: number, id: number, kind: string): Promise<JobRow | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT id, kind, status, total, done, result, created_at, extract(epoch FROM now() - updated_at)::float AS idle_seconds
       FROM jobs WHERE id = $1 AND org_id = $2 AND kind = $3`,
      [id, orgId, kind],
    );
    return row;
  }
}
