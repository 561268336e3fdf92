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
  internal?: boolean;
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

type CaRef = Pick<AuthorityRow, 'id' | 'org_id'>;
const BY_ROW = 'id = $1 AND org_id IS NOT DISTINCT FROM $2';
const COLUMNS = 'a.id, a.org_id, a.name, a.kind, a.parent_id, a.common_name, a.serial_number, a.certificate_pem, a.chain_pem, a.key_algorithm';
// What an organisation may name and sign with: its own CAs and the server-wide ones (org_id
// NULL), never the internal CA of the services' TLS certificate.
const VISIBLE = '(a.org_id IS NULL OR a.org_id = $1) AND NOT a.internal';

/**
 * Certificate authorities, their sealed keys and their published CRLs. Every look-up takes
 * the organisation first; `null` is the scope of the server-wide CAs made at first start.
 */
/** A public CA reference that is an id: up to nine digits (the column is an integer); longer is a name. */
export function isCaIdRef(ref: string): boolean {
  return /^\d{1,9}$/.test(ref);
}

@Injectable()
export class AuthorityRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The CA named `name` in exactly that scope (an organisation, or null: the server-wide CAs). */
  async findOwnedByName(orgId: number | null, name: string, m: EntityManager = this.dataSource.manager): Promise<AuthorityRow | undefined> {
    const [row] = await m.query(
      `SELECT ${COLUMNS} FROM certificate_authorities a WHERE a.org_id IS NOT DISTINCT FROM $1 AND lower(a.name) = lower($2)`,
      [orgId, name],
    );
    return row;
  }

  /** The issuer of a certificate of the organisation: its own CA or a server-wide one. */
  async findVisibleById(orgId: number, id: number, m: EntityManager = this.dataSource.manager): Promise<AuthorityRow | undefined> {
    const [row] = await m.query(`SELECT ${COLUMNS} FROM certificate_authorities a WHERE ${VISIBLE} AND a.id = $2`, [orgId, id]);
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
         AND ($3::text IS NULL OR a.serial_number = $3) ORDER BY a.org_id NULLS LAST, a.id DESC LIMIT 1`,
      [orgId, commonName, serial ?? null],
    );
    return row;
  }

  /**
   * An inventory certificate already adopted as a CA by this organisation: matched on the
   * certificate itself (same DER, hence same key), never on a name or serial anyone can copy.
   */
  async findAdopted(orgId: number, certificatePem: string, m: EntityManager = this.dataSource.manager): Promise<AuthorityRow | undefined> {
    const [row] = await m.query(
      `SELECT ${COLUMNS} FROM certificate_authorities a WHERE a.org_id = $1 AND a.certificate_pem = $2 ORDER BY a.id LIMIT 1`,
      [orgId, certificatePem],
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

  /** The public /ca and /crl routes (a CA's certificate and CRL are public; never its key). */
  async findPublishedById(id: number): Promise<AuthorityRow | undefined> {
    const [row] = await this.dataSource.query(`SELECT ${COLUMNS} FROM certificate_authorities a WHERE a.id = $1`, [id]);
    return row;
  }

  /** The same by name: the server-wide CA of that name first, then at most two others. */
  findPublishedByName(name: string): Promise<AuthorityRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM certificate_authorities a WHERE lower(a.name) = lower($1) ORDER BY a.org_id NULLS FIRST, a.id LIMIT 2`,
      [name],
    );
  }

  /**
   * A CA named by a public route (/crl, /ca, /ocsp): by id, or by a name only one CA holds (a
   * server-wide CA's name first). `ambiguous` when several organisations' CAs, and no
   * server-wide one, hold the name: it names none of them.
   */
  async findPublishedByRef(ref: string): Promise<{ ca?: AuthorityRow; ambiguous: boolean }> {
    if (isCaIdRef(ref)) return { ca: await this.findPublishedById(Number(ref)), ambiguous: false };
    const [first, second] = await this.findPublishedByName(ref);
    if (first && first.org_id !== null && second) return { ambiguous: true };
    return { ca: first, ambiguous: false };
  }

  /** The key of a CA found by one of the scoped look-ups above (its scope is checked again). */
  async readSealedKey(ca: CaRef, m: EntityManager = this.dataSource.manager): Promise<Buffer> {
    const [row] = await m.query(`SELECT private_key FROM certificate_authorities WHERE ${BY_ROW}`, [ca.id, ca.org_id]);
    return row.private_key;
  }

  async insert(m: EntityManager, a: NewAuthority): Promise<number> {
    const [row] = await m.query(
      `INSERT INTO certificate_authorities (org_id, name, kind, parent_id, common_name, serial_number, certificate_pem, chain_pem, private_key, key_algorithm, internal)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) RETURNING id`,
      [a.orgId, a.name, a.kind, a.parentId, a.commonName, a.serialNumber, a.certificatePem, a.chainPem, a.sealedPrivateKey, a.keyAlgorithm, a.internal ?? false],
    );
    return row.id;
  }

  // The CRL of a CA found by a scoped or public look-up: each statement names the CA by its
  // row (id and scope), never by an id alone.
  async lock(m: EntityManager, ca: CaRef): Promise<void> {
    await m.query(`SELECT id FROM certificate_authorities WHERE ${BY_ROW} FOR UPDATE`, [ca.id, ca.org_id]);
  }

  /** The published CRL, unless it is due for renewal by `freshUntil`. */
  async readFreshCrl(ca: CaRef, freshUntil: Date, m: EntityManager = this.dataSource.manager): Promise<Buffer | undefined> {
    const [row] = await m.query(
      `SELECT crl_der FROM certificate_authorities WHERE ${BY_ROW} AND crl_der IS NOT NULL AND crl_next_update > $3`,
      [ca.id, ca.org_id, freshUntil],
    );
    return row?.crl_der;
  }

  /** Locks the CA row and hands out the next CRL number; CRL numbers never repeat. */
  async nextCrlNumber(m: EntityManager, ca: CaRef): Promise<bigint> {
    // UPDATE ... RETURNING answers [rows, affected] through TypeORM's postgres driver.
    const [rows] = await m.query(
      `UPDATE certificate_authorities SET crl_number = crl_number + 1 WHERE ${BY_ROW} RETURNING crl_number::text AS n`,
      [ca.id, ca.org_id],
    );
    return BigInt(rows[0].n);
  }

  async storeCrl(m: EntityManager, ca: CaRef, der: Buffer, nextUpdate: Date): Promise<void> {
    await m.query(`UPDATE certificate_authorities SET crl_der = $3, crl_next_update = $4 WHERE ${BY_ROW}`, [ca.id, ca.org_id, der, nextUpdate]);
  }

  /**
   * What the CA's OCSP responder says about a serial: a certificate it issued, or a
   * subordinate CA it certified; undefined when it issued neither. Like revokedBy, a
   * server-wide CA answers for every organisation, an organisation's CA for that organisation.
   */
  async statusOfSerial(ca: CaRef, serial: string): Promise<{ revoked_at: Date | null; revoke_reason: number | null } | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT revoked_at, revoke_reason FROM certificates WHERE ca_id = $1 AND ($2::int IS NULL OR org_id = $2) AND serial_number = $3
       UNION ALL SELECT NULL, NULL FROM certificate_authorities WHERE parent_id = $1 AND ($2::int IS NULL OR org_id = $2) AND serial_number = $3 LIMIT 1`,
      [ca.id, ca.org_id, serial],
    );
    return row;
  }

  /** The delegated OCSP responder stored for the CA, if any. */
  async readOcspResponder(ca: CaRef, m: EntityManager = this.dataSource.manager): Promise<StoredResponder | undefined> {
    const [row] = await m.query(
      `SELECT ocsp_certificate_pem, ocsp_private_key, ocsp_not_after FROM certificate_authorities
       WHERE ${BY_ROW} AND ocsp_certificate_pem IS NOT NULL`,
      [ca.id, ca.org_id],
    );
    return row ? { certificatePem: row.ocsp_certificate_pem, sealedKey: row.ocsp_private_key, notAfter: row.ocsp_not_after } : undefined;
  }

  async storeOcspResponder(m: EntityManager, ca: CaRef, responder: StoredResponder): Promise<void> {
    await m.query(`UPDATE certificate_authorities SET ocsp_certificate_pem = $3, ocsp_private_key = $4, ocsp_not_after = $5 WHERE ${BY_ROW}`, [
      ca.id,
      ca.org_id,
      responder.certificatePem,
      responder.sealedKey,
      responder.notAfter,
    ]);
  }

  /**
   * Every revoked certificate this CA issued (the CRL is per CA): a server-wide CA's in every
   * organisation, an organisation's CA's in that organisation.
   */
  revokedBy(m: EntityManager, ca: CaRef): Promise<{ serial_number: string; revoked_at: Date; revoke_reason: number }[]> {
    return m.query(
      `SELECT serial_number, revoked_at, revoke_reason FROM certificates
       WHERE ca_id = $1 AND ($2::int IS NULL OR org_id = $2) AND revoked_at IS NOT NULL ORDER BY revoked_at, id`,
      [ca.id, ca.org_id],
    );
  }
}
