import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface CsrRow {
  id: number;
  org_id: number;
  common_name: string;
  csr_pem: string;
  key_algorithm: string;
  key_length: number;
  signature_algorithm: string;
  validity: string;
  validity_type: string;
  store_type: string;
  email: string;
  created_by_name: string;
  created_by: number | null;
  created_at: Date;
  has_key: boolean;
  has_password: boolean;
}

export interface NewCsr {
  orgId: number;
  commonName: string;
  csrPem: string;
  sealedPrivateKey: Buffer | null;
  sealedKeyPassword: Buffer | null;
  keyAlgorithm: string;
  keyLength: number;
  signatureAlgorithm: string;
  validity: string;
  validityType: string;
  storeType: string;
  email: string;
  createdByName: string;
  createdBy: number | null;
}

const COLUMNS = `r.id, r.org_id, r.common_name, r.csr_pem, r.key_algorithm, r.key_length, r.signature_algorithm, r.validity, r.validity_type,
  r.store_type, r.email, r.created_by_name, r.created_by, r.created_at, (r.private_key IS NOT NULL) AS has_key, (r.key_password IS NOT NULL) AS has_password`;

@Injectable()
export class CsrRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(m: EntityManager, c: NewCsr): Promise<number> {
    const [row] = await m.query(
      `INSERT INTO csrs (org_id, common_name, csr_pem, private_key, key_password, key_algorithm, key_length, signature_algorithm,
         validity, validity_type, store_type, email, created_by_name, created_by)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14) RETURNING id`,
      [c.orgId, c.commonName, c.csrPem, c.sealedPrivateKey, c.sealedKeyPassword, c.keyAlgorithm, c.keyLength, c.signatureAlgorithm,
        c.validity, c.validityType, c.storeType, c.email, c.createdByName, c.createdBy],
    );
    return row.id;
  }

  listInOrg(orgId: number): Promise<CsrRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM csrs r WHERE r.org_id = $1 ORDER BY r.id`, [orgId]);
  }

  async findInOrg(orgId: number, id: number): Promise<CsrRow | undefined> {
    const [row] = await this.dataSource.query(`SELECT ${COLUMNS} FROM csrs r WHERE r.org_id = $1 AND r.id = $2`, [orgId, id]);
    return row;
  }

  async readSecrets(orgId: number, id: number): Promise<{ privateKey: Buffer | null; keyPassword: Buffer | null }> {
    const [row] = await this.dataSource.query('SELECT private_key, key_password FROM csrs WHERE org_id = $1 AND id = $2', [orgId, id]);
    return { privateKey: row?.private_key ?? null, keyPassword: row?.key_password ?? null };
  }
}
