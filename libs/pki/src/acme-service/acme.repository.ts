import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Identifier, Jwk } from '../acme';
import { affected } from './affected';
import { isCaIdRef } from '../cert-service';

export interface AccountRow {
  id: number;
  org_id: number;
  ca_id: number;
  eab_key_id: number;
  thumbprint: string;
  jwk: Jwk;
  status: string;
  contact: string[];
  /** From the EAB key: the certificate profile the account's certificates get. */
  template: string;
}

export interface OrderRow {
  id: number;
  account_id: number;
  status: string;
  identifiers: Identifier[];
  expires: Date;
  error: unknown;
  certificate_id: number | null;
}

export interface AuthzRow {
  id: number;
  order_id: number;
  account_id: number;
  identifier_type: 'dns' | 'ip';
  identifier_value: string;
  status: string;
  expires: Date;
}

export interface ChallengeRow {
  id: number;
  authorization_id: number;
  type: string;
  token: string;
  status: string;
  validated_at: Date | null;
  error: unknown;
}

const ACCOUNT = `SELECT a.id, a.org_id, a.ca_id, a.eab_key_id, a.thumbprint, a.jwk, a.status, a.contact, e.template
  FROM acme_accounts a JOIN acme_eab_keys e ON e.id = a.eab_key_id`;
const AUTHZ = `SELECT z.*, o.account_id FROM acme_authorizations z JOIN acme_orders o ON o.id = z.order_id`;

/** ACME state. Every look-up below the account is scoped by the account that owns it. */
@Injectable()
export class AcmeRepository {
  constructor(private readonly dataSource: DataSource) {}

  private q(m?: EntityManager) {
    return m ?? this.dataSource.manager;
  }

  /**
   * The CA of /acme/<ca>/: by id, or by a name only one CA holds (a server-wide CA's first),
   * like the public /crl and /ocsp routes; never the internal service CA.
   */
  async caByName(ref: string): Promise<{ id: number; org_id: number | null; name: string } | undefined> {
    const byId = isCaIdRef(ref);
    const [first, second] = await this.dataSource.query(
      `SELECT c.id, c.org_id, c.name FROM certificate_authorities c
        WHERE NOT c.internal AND ${byId ? 'c.id = $1::int' : 'lower(c.name) = lower($1)'}
        ORDER BY c.org_id NULLS FIRST, c.id LIMIT 2`,
      [ref],
    );
    return first && first.org_id !== null && second ? undefined : first;
  }

  async accountById(id: number, m?: EntityManager): Promise<AccountRow | undefined> {
    const [row] = await this.q(m).query(`${ACCOUNT} WHERE a.id = $1`, [id]);
    return row;
  }

  async accountByThumbprint(thumbprint: string): Promise<AccountRow | undefined> {
    const [row] = await this.dataSource.query(`${ACCOUNT} WHERE a.thumbprint = $1`, [thumbprint]);
    return row;
  }

  async insertAccount(m: EntityManager, a: { orgId: number; caId: number; eabKeyId: number; thumbprint: string; jwk: Jwk; contact: string[] }): Promise<number> {
    const [row] = await m.query(
      `INSERT INTO acme_accounts (org_id, ca_id, eab_key_id, thumbprint, jwk, contact) VALUES ($1,$2,$3,$4,$5,$6) RETURNING id`,
      [a.orgId, a.caId, a.eabKeyId, a.thumbprint, JSON.stringify(a.jwk), a.contact],
    );
    return row.id;
  }

  async updateAccount(m: EntityManager, id: number, set: { status?: string; contact?: string[]; thumbprint?: string; jwk?: Jwk }): Promise<void> {
    await m.query(
      `UPDATE acme_accounts SET status = COALESCE($2, status), contact = COALESCE($3, contact),
         thumbprint = COALESCE($4, thumbprint), jwk = COALESCE($5, jwk) WHERE id = $1`,
      [id, set.status ?? null, set.contact ?? null, set.thumbprint ?? null, set.jwk ? JSON.stringify(set.jwk) : null],
    );
  }

  /** RFC 8555 §7.3.6: a deactivated account's pending work is cancelled. */
  async cancelPendingWork(m: EntityManager, accountId: number): Promise<void> {
    await m.query(
      `UPDATE acme_authorizations SET status = 'deactivated' WHERE status = 'pending'
         AND order_id IN (SELECT id FROM acme_orders WHERE account_id = $1)`,
      [accountId],
    );
    await m.query(`UPDATE acme_orders SET status = 'invalid' WHERE account_id = $1 AND status IN ('pending', 'ready')`, [accountId]);
  }

  async eabKey(keyId: string, m?: EntityManager): Promise<{ id: number; org_id: number; ca_id: number; hmac_key: Buffer; used: boolean } | undefined> {
    const [row] = await this.q(m).query(
      `SELECT e.id, e.org_id, e.ca_id, e.hmac_key, EXISTS (SELECT 1 FROM acme_accounts a WHERE a.eab_key_id = e.id) AS used
         FROM acme_eab_keys e WHERE e.key_id = $1`,
      [keyId],
    );
    return row;
  }

  async insertOrder(m: EntityManager, accountId: number, identifiers: Identifier[], expires: Date): Promise<number> {
    const [row] = await m.query(`INSERT INTO acme_orders (account_id, status, identifiers, expires) VALUES ($1, 'pending', $2, $3) RETURNING id`, [
      accountId,
      JSON.stringify(identifiers),
      expires,
    ]);
    return row.id;
  }

  async order(accountId: number, id: number, m?: EntityManager): Promise<OrderRow | undefined> {
    const [row] = await this.q(m).query(`SELECT * FROM acme_orders WHERE id = $1 AND account_id = $2`, [id, accountId]);
    return row;
  }

  async orderIds(accountId: number): Promise<number[]> {
    const rows = await this.dataSource.query(`SELECT id FROM acme_orders WHERE account_id = $1 AND status IN ('pending','ready','processing','valid') ORDER BY id`, [accountId]);
    return rows.map((r: { id: number }) => r.id);
  }

  /** Moves an order from one status to another; false when another request got there first. */
  async moveOrder(m: EntityManager, id: number, from: string[], to: string, set: { error?: unknown; certificateId?: number } = {}): Promise<boolean> {
    const result = await m.query(
      `UPDATE acme_orders SET status = $3, error = COALESCE($4, error), certificate_id = COALESCE($5, certificate_id)
        WHERE id = $1 AND status = ANY($2)`,
      [id, from, to, set.error === undefined ? null : JSON.stringify(set.error), set.certificateId ?? null],
    );
    return affected(result) > 0;
  }

  async lockOrder(m: EntityManager, id: number): Promise<void> {
    await m.query('SELECT id FROM acme_orders WHERE id = $1 FOR UPDATE', [id]);
  }

  async insertAuthz(m: EntityManager, orderId: number, id: Identifier, expires: Date): Promise<number> {
    const [row] = await m.query(
      `INSERT INTO acme_authorizations (order_id, identifier_type, identifier_value, expires) VALUES ($1,$2,$3,$4) RETURNING id`,
      [orderId, id.type, id.value, expires],
    );
    return row.id;
  }

  async authzOfOrder(orderId: number, m?: EntityManager): Promise<AuthzRow[]> {
    return this.q(m).query(`${AUTHZ} WHERE z.order_id = $1 ORDER BY z.id`, [orderId]);
  }

  async authz(accountId: number, id: number, m?: EntityManager): Promise<AuthzRow | undefined> {
    const [row] = await this.q(m).query(`${AUTHZ} WHERE z.id = $1 AND o.account_id = $2`, [id, accountId]);
    return row;
  }

  async setAuthzStatus(m: EntityManager, id: number, status: string): Promise<void> {
    await m.query(`UPDATE acme_authorizations SET status = $2 WHERE id = $1`, [id, status]);
  }

  async insertChallenge(m: EntityManager, authzId: number, type: string, token: string): Promise<void> {
    await m.query(`INSERT INTO acme_challenges (authorization_id, type, token) VALUES ($1,$2,$3)`, [authzId, type, token]);
  }

  async challengesOf(authzId: number, m?: EntityManager): Promise<ChallengeRow[]> {
    return this.q(m).query(`SELECT * FROM acme_challenges WHERE authorization_id = $1 ORDER BY id`, [authzId]);
  }

  async challenge(accountId: number, id: number): Promise<(ChallengeRow & { order_id: number }) | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT c.*, z.order_id FROM acme_challenges c JOIN acme_authorizations z ON z.id = c.authorization_id
         JOIN acme_orders o ON o.id = z.order_id WHERE c.id = $1 AND o.account_id = $2`,
      [id, accountId],
    );
    return row;
  }

  /** pending → processing, once across instances: the caller that wins validates. */
  async claimChallenge(id: number): Promise<boolean> {
    const result = await this.dataSource.query(`UPDATE acme_challenges SET status = 'processing' WHERE id = $1 AND status = 'pending'`, [id]);
    return affected(result) > 0;
  }

  async finishChallenge(m: EntityManager, id: number, status: 'valid' | 'invalid', error: unknown): Promise<void> {
    await m.query(`UPDATE acme_challenges SET status = $2, error = $3, validated_at = CASE WHEN $2 = 'valid' THEN now() END WHERE id = $1`, [
      id,
      status,
      error === undefined ? null : JSON.stringify(error),
    ]);
  }

  /** An issued certificate and the account whose order produced it (revocation). */
  async certificateByFingerprint(fingerprint: string): Promise<{ id: number; org_id: number; ca_id: number; common_name: string; serial_number: string; sans: string[]; account_ids: number[] } | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT c.id, c.org_id, c.ca_id, c.common_name, c.serial_number, c.sans,
              ARRAY(SELECT o.account_id FROM acme_orders o WHERE o.certificate_id = c.id) AS account_ids
         FROM certificates c WHERE c.fingerprint = $1 AND c.ca_id IS NOT NULL LIMIT 1`,
      [fingerprint],
    );
    return row;
  }

  /** RFC 8555 §7.6: whether the account holds current valid authorisations for every name. */
  async holdsAuthorizations(accountId: number, names: string[]): Promise<boolean> {
    const [row] = await this.dataSource.query(
      `SELECT NOT EXISTS (
         SELECT 1 FROM unnest($2::text[]) AS n(value) WHERE NOT EXISTS (
           SELECT 1 FROM acme_authorizations z JOIN acme_orders o ON o.id = z.order_id
            WHERE o.account_id = $1 AND z.status = 'valid' AND z.expires > now() AND z.identifier_value = lower(n.value))) AS covered`,
      [accountId, names],
    );
    return names.length > 0 && row.covered === true;
  }

  async certificatePem(accountId: number, orderCertificateId: number): Promise<{ certificate_pem: string; chain_pem: string } | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT c.certificate_pem, c.chain_pem FROM certificates c
         WHERE c.id = $1 AND EXISTS (SELECT 1 FROM acme_orders o WHERE o.certificate_id = c.id AND o.account_id = $2)`,
      [orderCertificateId, accountId],
    );
    return row;
  }
}
