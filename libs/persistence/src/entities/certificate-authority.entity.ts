import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

// Names are unique per organisation: index certificate_authorities_org_name_key on
// (COALESCE(org_id, 0), lower(name)), made by migration AuthoritiesPerOrganisation.
@Entity('certificate_authorities')
export class CertificateAuthority {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) kind!: 'root' | 'intermediate';
  @Column({ type: 'int', nullable: true }) parentId!: number | null;
  @Column({ type: 'text' }) commonName!: string;
  @Column({ type: 'text' }) serialNumber!: string;
  @Column({ type: 'text' }) certificatePem!: string;
  @Column({ type: 'bytea', select: false }) privateKey!: Buffer;
  @Column({ type: 'text' }) keyAlgorithm!: string;
  @Column({ type: 'bigint', default: 0 }) crlNumber!: string;
  /** NULL: a server-wide CA (made at first start); else the organisation that made it. */
  @Column({ type: 'int', nullable: true }) orgId!: number | null;
  /** The CA of the services' own TLS certificate: never listed nor usable through the API. */
  @Column({ default: false }) internal!: boolean;
  /** Issuers above this CA, PEM, nearest first. */
  @Column({ type: 'text', default: '' }) chainPem!: string;
  @Column({ type: 'bytea', nullable: true, select: false }) crlDer!: Buffer | null;
  @Column({ type: 'timestamptz', nullable: true }) crlNextUpdate!: Date | null;
  /** The delegated OCSP responder's certificate and sealed key, renewed before ocspNotAfter. */
  @Column({ type: 'text', nullable: true }) ocspCertificatePem!: string | null;
  @Column({ type: 'bytea', nullable: true, select: false }) ocspPrivateKey!: Buffer | null;
  @Column({ type: 'timestamptz', nullable: true }) ocspNotAfter!: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
