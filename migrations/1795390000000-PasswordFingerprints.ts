import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 14: keyed fingerprints of account passwords (Keyring.fingerprint: the key version
 * and an HMAC under a key derived from the data key), on the account for its current
 * password and on each history entry for the password it replaced. The reuse check of a
 * password change compares fingerprints in SQL, so the common change is one autocommitted
 * statement (AccountSecretGate.changeAtOnce) instead of a transaction that brings the last
 * passwords to the server to open them.
 *
 * The fingerprint is bound to the account (its id is in the MAC), so two accounts with the
 * same password do not show it. Existing rows get none here: the key is not in the
 * database, and a new account's id is not known before its insert. An account whose recent
 * passwords lack one (or carry another key version's) is changed the way it was before,
 * which opens the sealed values and then writes their fingerprints: its next change takes
 * the one statement.
 */
export class PasswordFingerprints1795390000000 implements MigrationInterface {
  name = 'PasswordFingerprints1795390000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE accounts ADD COLUMN password_fingerprint bytea');
    await q.query('ALTER TABLE password_history ADD COLUMN fingerprint bytea');
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE password_history DROP COLUMN fingerprint');
    await q.query('ALTER TABLE accounts DROP COLUMN password_fingerprint');
  }
}
