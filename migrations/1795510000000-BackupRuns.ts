import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 39: scheduled backups. One row per run of any instance, so that every instance sees
 * when the last one succeeded (only one of them runs it, under an advisory lock).
 */
export class BackupRuns1795510000000 implements MigrationInterface {
  name = 'BackupRuns1795510000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE backup_runs (
      id serial PRIMARY KEY,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      file text NOT NULL,
      outcome text NOT NULL DEFAULT 'running' CHECK (outcome IN ('running', 'success', 'failed')),
      bytes bigint,
      sha256 text,
      error text)`);
    await q.query(`CREATE INDEX backup_runs_started ON backup_runs (outcome, started_at DESC)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE backup_runs`);
  }
}
