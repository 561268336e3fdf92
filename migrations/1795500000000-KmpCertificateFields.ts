import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 38, the Key Manager Plus operations beyond our spec: a certificate's bookkeeping
 * (description, the host name shown against it, whether renewals are deployed automatically),
 * additional fields an administrator defines and their values per certificate, the CSR's
 * creator as a user id (getCSRList's LOGIN_ID), and the exclusion list that deleting with
 * exclude_certificate fills and discovery respects.
 */
export class KmpCertificateFields1795500000000 implements MigrationInterface {
  name = 'KmpCertificateFields1795500000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE certificates ADD COLUMN description text NOT NULL DEFAULT '',
      ADD COLUMN dns_name text NOT NULL DEFAULT '', ADD COLUMN auto_deploy boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE TABLE ssl_additional_fields (
      id serial PRIMARY KEY,
      org_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      options text[],
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE UNIQUE INDEX ssl_additional_fields_name ON ssl_additional_fields (org_id, lower(name))`);
    await q.query(`CREATE TABLE certificate_field_values (
      certificate_id integer NOT NULL REFERENCES certificates(id) ON DELETE CASCADE,
      field_id integer NOT NULL REFERENCES ssl_additional_fields(id) ON DELETE CASCADE,
      value text NOT NULL,
      PRIMARY KEY (certificate_id, field_id))`);
    await q.query(`CREATE TABLE certificate_exclusions (
      id serial PRIMARY KEY,
      org_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      fingerprint text NOT NULL,
      common_name text NOT NULL,
      serial_number text NOT NULL,
      reason text NOT NULL DEFAULT '',
      excluded_by_name text NOT NULL,
      excluded_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (org_id, fingerprint))`);
    await q.query(`ALTER TABLE csrs ADD COLUMN created_by integer REFERENCES users(id) ON DELETE SET NULL`);
    await q.query(`UPDATE csrs c SET created_by = u.id FROM users u WHERE u.org_id = c.org_id AND u.username = c.created_by_name`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE csrs DROP COLUMN created_by`);
    await q.query(`DROP TABLE certificate_exclusions`);
    await q.query(`DROP TABLE certificate_field_values`);
    await q.query(`DROP TABLE ssl_additional_fields`);
    await q.query(`ALTER TABLE certificates DROP COLUMN description, DROP COLUMN dns_name, DROP COLUMN auto_deploy`);
  }
}
