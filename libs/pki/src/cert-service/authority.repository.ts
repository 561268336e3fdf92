import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface AuthorityRow {
  id: number;
  org_id: number | null;
  name: string;
  kind: 'root' | 'intermediate';
  parent_id: number | null;
  common_name: string;
  serial_number: string;
  certificate_pem: string;
  chain_pem: string;
  key_algorithm: string;
}

export interface NewAuthority {
  orgId: number | null;
  name: string;
  kind: 'root' | 'intermediate';
  parentId: number | null;
  commonName: string;
  serialNumber: string;
  certificatePem: string;
  chainPem: string;
  sealedPrivateKey: Buffer;
  keyAlgorithm: string;
}

export interface StoredResponder {
  certificatePem: string;
  sealedKey: Buffer;
  notAfter: Date;
}

const COLUMNS = 'a.id, a.org_id, a.name, a.kind, a.parent_id, a.common_name, a.serial_number, a.certificate_pem, a.chain_pem, a.key_algorithm';
// Server-wide CAs (org_id NULL) serve every organisation; an organisation's own CAs only it.
const VISIBLE = '(a.org_id IS NULL OR a.org_id = $1)';

/** Certificate authorities, their sealed keys and their published CRLs. */
@Injectable()
export class AuthorityRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByName(name: string, m: EntityManager = this.dataSource.manager): Promise<AuthorityRow | undefined> {
    const [row] = await m.query(`SELECT ${COLUMNS} FROM certificate_authorities a WHERE lower(a.name) = lower($1)`, [name]);
    return row;
  }

  /** A CA by id (digits) or by name: the public CRL, CA certificate and OCSP routes. */
  findByRef(ref: string): Promise<AuthorityRow | undefined> {
    // More than nine digits is no id (the column is an integer): look it up as a name.
    return /^\d{1,9}$/.test(ref) ? this.findById(Number(ref)) : this.findByName(ref);
  }

  async findById(id: number): Promise<AuthorityRow | undefined> {
    const [row] = await this.dataSource.query(`SELECT ${COLUMNS} FROM certificate_authorities a WHERE a.id = $1`, [id]);
    return row;
  }

  /** caName of signCSR and parentCaName of createCA: the CA's name first, then its common name. */
  async findVisibleByName(orgId: number, name: string): Promise<AuthorityRow | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM certificate_authorities a WHERE ${VISIBLE} AND (lower(a.name) = lower($2) OR lower(a.common_name) = lower($2))
       ORDER BY (lower(a.name) = lower($2)) DESC, a.org_id NULLS LAST, a.id DESC LIMIT 1`,
      [orgId, name],
    );
    return row;
  }

  /** signWithRoot: by common name and, when given, serial; else the newest CA of that name. */
  async findVisibleByCommonName(orgId: number, commonName: string, serial?: string): Promise<AuthorityRow | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM certificate_authorities a WHERE ${VISIBLE} AND lower(a.common_name) = lower($2)
         AND ($3::text IS NULL OR a.serial_number = $3) ORDER BY a.id DESC LIMIT 1`,
      [orgId, commonName, serial ?? null],
    );
    return row;
  }

  async namesVisible(orgId: number): Promise<string[]> {
    const rows: { name: string }[] = await this.dataSource.query(
      `SELECT a.name FROM certificate_authorities a WHERE ${VISIBLE} ORDER BY a.id`,
      [orgId],
    );
    return rows.map((r) => r.name);
  }

  async readSealedKey(id: number, m: EntityManager = this.dataSource.manager): Promise<Buffer> {
    const [row] = await m.query('SELECT private_key FROM certificate_authorities WHERE id = $1', [id]);
    return row.private_key;
  }

  async insert(m: EntityManager, a: NewAuthority): Promise<number> {
    const [row] = await m.query(
      `INSERT INTO certificate_authorities (org_id, name, kind, parent_id, common_name, serial_number, certificate_pem, chain_pem, private_key, key_algorithm)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) RETURNING id`,
      [a.orgId, a.name, a.kind, a.parentId, a.commonName, a.serialNumber, a.certificatePem, a.chainPem, a.sealedPrivateKey, a.keyAlgorithm],
    );
    return row.id;
  }

  /** The published CRL, unless it is due for renewal by `freshUntil`. */
  async lock(m: EntityManager, id: number): Promise<void> {
    await m.query('SELECT id FROM certificate_authorities WHERE id = $1 FOR UPDATE', [id]);
  }

  async readFreshCrl(id: number, freshUntil: Date, m: EntityManager = this.dataSource.manager): Promise<Buffer | undefined> {
    const [row] = await m.query(
      'SELECT crl_der FROM certificate_authorities WHERE id = $1 AND crl_der IS NOT NULL AND crl_next_update > $2',
      [id, freshUntil],
    );
    return row?.crl_der;
  }

  /** Locks the CA row and hands out the next CRL number; CRL numbers never repeat. */
  async nextCrlNumber(m: EntityManager, id: number): Promise<bigint> {
    // UPDATE ... RETURNING answers [rows, affected] through TypeORM's postgres driver.
    const [rows] = await m.query(
      'UPDATE certificate_authorities SET crl_number = crl_number + 1 WHERE id = $1 RETURNING crl_number::text AS n',
      [id],
    );
    return BigInt(rows[0].n);
  }

  async storeCrl(m: EntityManager, id: number, der: Buffer, nextUpdate: Date): Promise<void> {
    await m.query('UPDATE certificate_authorities SET crl_der = $2, crl_next_update = $3 WHERE id = $1', [id, der, nextUpdate]);
  }

  /**
   * What the CA's OCSP responder says about a serial: a certificate it issued (in any
   * organisation), or a subordinate CA it certified; undefined when it issued neither.
   */
  async statusOfSerial(id: number, serial: string): Promise<{ revoked_at: Date | null; revoke_reason: number | null } | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT revoked_at, revoke_reason FROM certificates WHERE ca_id = $1 AND serial_number = $2
       UNION ALL SELECT NULL, NULL FROM certificate_authorities WHERE parent_id = $1 AND serial_number = $2 LIMIT 1`,
      [id, serial],
    );
    return row;
  }

  /** The delegated OCSP responder stored for the CA, if any. */
  async readOcspResponder(id: number, m: EntityManager = this.dataSource.manager): Promise<StoredResponder | undefined> {
    const [row] = await m.query(
      `SELECT ocsp_certificate_pem, ocsp_private_key, ocsp_not_after FROM certificate_authorities
       WHERE id = $1 AND ocsp_certificate_pem IS NOT NULL`,
      [id],
    );
    return row ? { certificatePem: row.ocsp_certificate_pem, sealedKey: row.ocsp_private_key, notAfter: row.ocsp_not_after } : undefined;
  }

  async storeOcspResponder(m: EntityManager, id: number, responder: StoredResponder): Promise<void> {
    await m.query(
      'UPDATE certificate_authorities SET ocsp_certificate_pem = $2, ocsp_private_key = $3, ocsp_not_after = $4 WHERE id = $1',
      [id, responder.certificatePem, responder.sealedKey, responder.notAfter],
    );
  }

  /** Every revoked certificate this CA issued, in every organisation (the CRL is per CA). */
  revokedBy(m: EntityManager, id: number): Promise<{ serial_number: string; revoked_at: Date; revoke_reason: number }[]> {
    return m.query(
      'SELECT serial_number, revoked_at, revoke_reason FROM certificates WHERE ca_id = $1 AND revoked_at IS NOT NULL ORDER BY revoked_at, id',
      [id],
    );
  }
}
