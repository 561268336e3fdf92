import { EntityManager } from 'typeorm';
import { certificateDetails, CertificateDetails } from '../certs';

export type CertificateSource = 'self-signed' | 'signed' | 'acme' | 'imported' | 'discovered';

export interface CertificateToSave {
  orgId: number;
  certPem: string;
  /** Issuer chain, PEM, the leaf's issuer first. */
  chainPems?: string[];
  /** Sealed private key (Keyring) and sealed key password, when we hold the key. */
  sealedPrivateKey?: Buffer | null;
  sealedKeyPassword?: Buffer | null;
  storeType?: string;
  caId?: number | null;
  template?: string;
  source: CertificateSource;
  createdByName: string;
  /** Expiry Notification Email; saving an existing certificate again keeps its own unless one is given. */
  notificationEmail?: string;
}

export interface SavedCertificate {
  id: number;
  created: boolean;
  details: CertificateDetails;
}

/**
 * The one write path into the certificate inventory, shared by add, create, sign,
 * import and discovery. A certificate is identified by its SHA-256 fingerprint within
 * an organisation: saving it again updates the chain and, when given, the key.
 */
export async function saveCertificate(m: EntityManager, input: CertificateToSave): Promise<SavedCertificate> {
  const details = certificateDetails(input.certPem);
  const [row] = await m.query(
    `INSERT INTO certificates (org_id, common_name, serial_number, fingerprint, issuer, subject, sans, not_before, not_after,
       key_algorithm, key_length, signature_algorithm, certificate_pem, chain_pem, private_key, key_password, store_type,
       ca_id, template, source, created_by_name, notification_email)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22)
     ON CONFLICT (org_id, fingerprint) DO UPDATE SET
       -- A discovered certificate the organisation then imports becomes managed; discovery never demotes one.
       source = CASE WHEN certificates.source = 'discovered' THEN EXCLUDED.source ELSE certificates.source END,
       notification_email = CASE WHEN EXCLUDED.notification_email <> '' THEN EXCLUDED.notification_email ELSE certificates.notification_email END,
       chain_pem = CASE WHEN EXCLUDED.chain_pem <> '' THEN EXCLUDED.chain_pem ELSE certificates.chain_pem END,
       private_key = COALESCE(EXCLUDED.private_key, certificates.private_key),
       key_password = COALESCE(EXCLUDED.key_password, certificates.key_password)
     RETURNING id, (xmax = 0) AS created`,
    [
      input.orgId,
      details.subject.cname || details.subject.dn,
      details.serialNumber,
      details.fingerprintSha256,
      details.issuer.dn,
      details.subject.dn,
      details.sans,
      details.notBefore,
      details.notAfter,
      details.keyAlgorithm,
      details.keyLength,
      details.signatureAlgorithm,
      details.pem,
      (input.chainPems ?? []).join(''),
      input.sealedPrivateKey ?? null,
      input.sealedKeyPassword ?? null,
      input.storeType ?? 'PKCS12',
      input.caId ?? null,
      input.template ?? '',
      input.source,
      input.createdByName,
      input.notificationEmail ?? '',
    ],
  );
  return { id: row.id, created: row.created, details };
}

/** Records (or refreshes) where a certificate was found: one row per host and port. */
export async function saveEndpoint(
  m: EntityManager,
  input: { orgId: number; certificateId: number; host: string; port: number; ip: string },
): Promise<number> {
  const [row] = await m.query(
    `INSERT INTO certificate_endpoints (org_id, certificate_id, host, port, ip) VALUES ($1, $2, lower($3), $4, $5)
     ON CONFLICT (org_id, host, port) DO UPDATE SET certificate_id = EXCLUDED.certificate_id, ip = EXCLUDED.ip, last_seen_at = now()
     RETURNING id`,
    [input.orgId, input.certificateId, input.host, input.port, input.ip],
  );
  return row.id;
}
