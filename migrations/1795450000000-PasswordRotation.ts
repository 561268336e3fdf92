import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 26: scheduled rotation per resource group, and the rotation webhook's outbox.
 *
 * rotation_schedules: one schedule per group (CONFIGURE PASSWORD ROTATION). next_run is
 * advanced in the same transaction that expands a due time into rotation_runs, under the
 * schedule row's lock, so a due time is expanded once whatever the number of instances.
 *
 * rotation_runs: one row per account and due time (the unique key is the "exactly once"):
 * a worker claims a row with FOR UPDATE SKIP LOCKED and keeps the lock while it rotates,
 * so a crashed instance's row is free again at once. accounts.pending_rotation_run goes with
 * a remote change's pending password, and accounts.last_rotation_run takes it when that
 * change commits (also when a settlement after a crash commits it): a run found done there
 * is not rotated again. A pair's member carries it, so the check is by run, not by account.
 *
 * accounts.rotation_failed_at: the last scheduled rotation failed after its retries (cleared
 * by the next rotation), shown as the account's PASSWORD STATUS.
 *
 * Two-account rotation (CONFIGURE DUAL ACCOUNT) on the pair's head account: its partner,
 * the member whose password reads answer now (dual_current_id: the head itself or the
 * partner), the grace and the time of the last switch. On the account row because the
 * password read already reads it (no new relation on the hot path). A deleted partner
 * ends the pair (SET NULL): reads fall back to the head's own password.
 *
 * rotation_events: the webhook's outbox, written in the transaction that stores the
 * rotation (or records its failure), delivered at least once by one instance at a time.
 */
export class PasswordRotation1795450000000 implements MigrationInterface {
  name = 'PasswordRotation1795450000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE rotation_schedules (
      group_id integer PRIMARY KEY REFERENCES resource_groups(id) ON DELETE CASCADE,
      org_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      enabled boolean NOT NULL,
      interval_value numeric NOT NULL CHECK (interval_value > 0),
      interval_unit text NOT NULL CHECK (interval_unit IN ('minutes', 'hours', 'days')),
      start_time timestamptz,
      retries integer NOT NULL DEFAULT 0 CHECK (retries >= 0),
      retry_interval_minutes numeric NOT NULL DEFAULT 5 CHECK (retry_interval_minutes > 0),
      notify text[] NOT NULL DEFAULT '{}',
      next_run timestamptz,
      last_run timestamptz,
      updated_by integer REFERENCES users(id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE INDEX rotation_schedules_due ON rotation_schedules (next_run) WHERE enabled');
    await q.query(`CREATE TABLE rotation_runs (
      id bigserial PRIMARY KEY,
      group_id integer NOT NULL REFERENCES resource_groups(id) ON DELETE CASCADE,
      org_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      due_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'due' CHECK (status IN ('due', 'done', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      message text NOT NULL DEFAULT '',
      finished_at timestamptz,
      UNIQUE (group_id, account_id, due_at)
    )`);
    await q.query(`CREATE INDEX rotation_runs_ready ON rotation_runs (next_attempt_at) WHERE status = 'due'`);
    await q.query('CREATE INDEX rotation_runs_account ON rotation_runs (account_id)');
    await q.query('ALTER TABLE accounts ADD COLUMN last_rotation_run bigint, ADD COLUMN rotation_failed_at timestamptz, ADD COLUMN pending_rotation_run bigint');
    await q.query('CREATE INDEX accounts_last_rotation_run ON accounts (last_rotation_run) WHERE last_rotation_run IS NOT NULL');
    await q.query(`ALTER TABLE accounts
      ADD COLUMN dual_partner_id integer REFERENCES accounts(id) ON DELETE SET NULL,
      ADD COLUMN dual_current_id integer REFERENCES accounts(id) ON DELETE SET NULL,
      ADD COLUMN dual_grace_minutes numeric,
      ADD COLUMN dual_switched_at timestamptz`);
    await q.query('CREATE UNIQUE INDEX accounts_dual_partner ON accounts (dual_partner_id) WHERE dual_partner_id IS NOT NULL');
    await q.query(`CREATE TABLE rotation_events (
      id bigserial PRIMARY KEY,
      org_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz,
      last_error text NOT NULL DEFAULT ''
    )`);
    await q.query('CREATE INDEX rotation_events_pending ON rotation_events (next_attempt_at) WHERE delivered_at IS NULL');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE rotation_events');
    await q.query('ALTER TABLE accounts DROP COLUMN dual_partner_id, DROP COLUMN dual_current_id, DROP COLUMN dual_grace_minutes, DROP COLUMN dual_switched_at');
    await q.query('ALTER TABLE accounts DROP COLUMN last_rotation_run, DROP COLUMN rotation_failed_at, DROP COLUMN pending_rotation_run');
    await q.query('DROP TABLE rotation_runs');
    await q.query('DROP TABLE rotation_schedules');
  }
}
