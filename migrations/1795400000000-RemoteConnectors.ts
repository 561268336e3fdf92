import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 25: remote password reset for every connector kind, verification, crash-safe changes.
 *
 * resources: what a connector needs besides host and port (database, TLS mode, the CA
 * certificates `verify` trusts, the LDAP DN template). accounts: the pending password of a
 * remote change in flight (sealed before the target is touched; cleared when the change
 * commits or is settled after a crash), the last verification's status and time, and the
 * claim that makes one instance verify an account per round.
 */
export class RemoteConnectors1795400000000 implements MigrationInterface {
  name = 'RemoteConnectors1795400000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE resources ADD COLUMN remote_database text, ADD COLUMN remote_tls text,
      ADD COLUMN remote_ca_cert text, ADD COLUMN remote_user_dn text`);
    await q.query(`ALTER TABLE accounts ADD COLUMN pending_password bytea, ADD COLUMN pending_since timestamptz,
      ADD COLUMN password_status text, ADD COLUMN last_verified_at timestamptz, ADD COLUMN verify_claimed_at timestamptz`);
    // The settler and the periodic verification look only at the few rows these name.
    await q.query('CREATE INDEX accounts_pending_idx ON accounts (pending_since) WHERE pending_password IS NOT NULL');
    await q.query('CREATE INDEX resources_remote_idx ON resources (id) WHERE remote_account_id IS NOT NULL');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX resources_remote_idx');
    await q.query('DROP INDEX accounts_pending_idx');
    await q.query(`ALTER TABLE accounts DROP COLUMN pending_password, DROP COLUMN pending_since, DROP COLUMN password_status,
      DROP COLUMN last_verified_at, DROP COLUMN verify_claimed_at`);
    await q.query('ALTER TABLE resources DROP COLUMN remote_database, DROP COLUMN remote_tls, DROP COLUMN remote_ca_cert, DROP COLUMN remote_user_dn');
  }
}
