import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 36, the web console: sessions in PostgreSQL (any instance serves any session; a
 * failover keeps them), and each user's TOTP second factor (sealed, and the last time step
 * accepted, so a code is accepted once).
 */
export class ConsoleSessions1795520000000 implements MigrationInterface {
  name = 'ConsoleSessions1795520000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE console_sessions (
      id serial PRIMARY KEY,
      token_hash bytea NOT NULL UNIQUE,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      csrf text NOT NULL,
      stage text NOT NULL CHECK (stage IN ('totp', 'enrol', 'full')),
      -- The organisation a provider user acts in (the API's orgName); NULL: their own.
      org_name text,
      -- Wrong second-factor codes so far: the fifth ends the session (back to the password).
      failures integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE INDEX console_sessions_user ON console_sessions (user_id)`);
    await q.query(`ALTER TABLE users ADD COLUMN totp_secret bytea, ADD COLUMN totp_pending bytea, ADD COLUMN totp_last_step bigint`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users DROP COLUMN totp_secret, DROP COLUMN totp_pending, DROP COLUMN totp_last_step`);
    await q.query(`DROP TABLE console_sessions`);
  }
}
