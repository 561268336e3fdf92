import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface CertificateRow {
  id: number;
  org_id: number;
  common_name: string;
  serial_number: string;
  fingerprint: string;
  issuer: string;
  subject: string;
  sans: string[];
  not_before: Date;
  not_after: Date;
  key_algorithm: string;
  key_length: number;
  signature_algorithm: string;
  certificate_pem: string;
  chain_pem: string;
  store_type: string;
  ca_id: number | null;
  template: string;
  source: string;
  revoked_at: Date | null;
  revoke_reason: number | null;
  notification_email: string;
  description: string;
  dns_name: string;
  auto_deploy: boolean;
  created_by_name: string;
  created_at: Date;
  has_key: boolean;
  has_password: boolean;
}

export interface CertificateSecrets {
  privateKey: Buffer | null;
  keyPassword: Buffer | null;
}

export interface EndpointRow {
  host: string;
  port: number;
  ip: string;
  /** The last TLS vulnerability scan there (discovery), or null. */
  scan: Record<string, unknown> | null;
}

export interface ListEntryRow extends CertificateRow {
  host: string | null;
  port: number | null;
}

export interface ListFilters {
  expiresBefore?: Date;
  /** Only certificates whose private key this server holds. */
  withPrivateKey?: boolean;
  keyLength?: number;
  /** Upper-case letters and digits only; matched as a substring of the same form. */
  signatureAlgorithm?: string;
}

const COLUMNS = `c.id, c.org_id, c.common_name, c.serial_number, c.fingerprint, c.issuer, c.subject, c.sans, c.not_before, c.not_after,
  c.key_algorithm, c.key_length, c.signature_algorithm, c.certificate_pem, c.chain_pem, c.store_type, c.ca_id, c.template, c.source,
  c.revoked_at, c.revoke_reason, c.notification_email, c.description, c.dns_name, c.auto_deploy, c.created_by_name, c.created_at,
  (c.private_key IS NOT NULL) AS has_key, (c.key_password IS NOT NULL) AS has_password`;

/**
 * The certificate inventory as read by the certificate operations; writes of new
 * certificates go through cert-store's saveCertificate (shared with discovery).
 */
@Injectable()
export class CertificateRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The certificate `common_name` (+ `serial_number`) names in an organisation. Several
   * may share a common name: without a serial a certificate the organisation manages
   * (created, signed, imported, ACME) wins over any discovered one, since whoever runs an
   * endpoint chooses what it presents; then the newest (latest notBefore, then the one
   * added last), as docs/api/pki.md says.
   */
  async pick(orgId: number, commonName: string, serial?: string, m: EntityManager = this.dataSource.manager): Promise<CertificateRow | undefined> {
    const [row] = await m.query(
      `SELECT ${COLUMNS} FROM certificates c WHERE c.org_id = $1 AND lower(c.common_name) = lower($2)
         AND ($3::text IS NULL OR c.serial_number = $3)
       ORDER BY (c.source = 'discovered'), c.not_before DESC, c.id DESC LIMIT 1`,
      [orgId, commonName, serial ?? null],
    );
    return row;
  }

  async findById(orgId: number, id: number, m: EntityManager = this.dataSource.manager): Promise<CertificateRow | undefined> {
    const [row] = await m.query(`SELECT ${COLUMNS} FROM certificates c WHERE c.org_id = $1 AND c.id = $2`, [orgId, id]);
    return row;
  }

  async lock(m: EntityManager, orgId: number, id: number): Promise<void> {
    await m.query('SELECT id FROM certificates WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
  }

  async readSecrets(orgId: number, id: number, m: EntityManager = this.dataSource.manager): Promise<CertificateSecrets> {
    const [row] = await m.query('SELECT private_key, key_password FROM certificates WHERE org_id = $1 AND id = $2', [orgId, id]);
    return { privateKey: row?.private_key ?? null, keyPassword: row?.key_password ?? null };
  }

  endpointsOf(orgId: number, certificateId: number): Promise<EndpointRow[]> {
    return this.dataSource.query(
      'SELECT host, port, ip, scan FROM certificate_endpoints WHERE org_id = $1 AND certificate_id = $2 ORDER BY last_seen_at DESC, id',
      [orgId, certificateId],
    );
  }

  /** One entry per place a certificate was found, or one for a certificate found nowhere. */
  listEntries(orgId: number, f: ListFilters): Promise<ListEntryRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS}, e.host, e.port FROM certificates c LEFT JOIN certificate_endpoints e ON e.certificate_id = c.id AND e.org_id = c.org_id
       WHERE c.org_id = $1 AND ($2::timestamptz IS NULL OR c.not_after < $2) AND ($3::int IS NULL OR c.key_length = $3)
         AND ($4::text IS NULL OR strpos(upper(regexp_replace(c.signature_algorithm, '[^A-Za-z0-9]', '', 'g')), $4) > 0)
         AND (NOT $5 OR c.private_key IS NOT NULL)
       ORDER BY c.not_after, c.id, e.host, e.port`,
      [orgId, f.expiresBefore ?? null, f.keyLength ?? null, f.signatureAlgorithm ?? null, f.withPrivateKey === true],
    );
  }

  expiryList(orgId: number): Promise<{ common_name: string; serial_number: string; not_after: Date }[]> {
    return this.dataSource.query('SELECT common_name, serial_number, not_after FROM certificates WHERE org_id = $1 ORDER BY not_after, id', [orgId]);
  }

  async setNotificationEmail(m: EntityManager, orgId: number, id: number, email: string): Promise<void> {
    await m.query('UPDATE certificates SET notification_email = $3 WHERE org_id = $1 AND id = $2', [orgId, id, email]);
  }

  /** KMP's updateSSLCertificateDetails: each column given is set; undefined keeps it. */
  async setBookkeeping(m: EntityManager, orgId: number, id: number, b: { description?: string; dnsName?: string; autoDeploy?: boolean }): Promise<void> {
    await m.query(
      `UPDATE certificates SET description = coalesce($3, description), dns_name = coalesce($4, dns_name), auto_deploy = coalesce($5, auto_deploy)
       WHERE org_id = $1 AND id = $2`,
      [orgId, id, b.description ?? null, b.dnsName ?? null, b.autoDeploy ?? null],
    );
  }

  /** Deleted with exclude_certificate: discovery will not bring this certificate back. */
  async exclude(m: EntityManager, row: CertificateRow, reason: string, byName: string): Promise<void> {
    await m.query(
      `INSERT INTO certificate_exclusions (org_id, fingerprint, common_name, serial_number, reason, excluded_by_name) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (org_id, fingerprint) DO UPDATE SET reason = EXCLUDED.reason, excluded_by_name = EXCLUDED.excluded_by_name, excluded_at = now()`,
      [row.org_id, row.fingerprint, row.common_name, row.serial_number, reason, byName],
    );
  }

  async delete(m: EntityManager, orgId: number, id: number): Promise<void> {
    await m.query('DELETE FROM certificates WHERE org_id = $1 AND id = $2', [orgId, id]);
  }

  async setRevocation(m: EntityManager, orgId: number, id: number, revokedAt: Date | null, reason: number | null): Promise<void> {
    await m.query('UPDATE certificates SET revoked_at = $3, revoke_reason = $4 WHERE org_id = $1 AND id = $2', [orgId, id, revokedAt, reason]);
  }
}
