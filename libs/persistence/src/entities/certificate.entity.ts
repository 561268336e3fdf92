import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity('certificates')
@Index(['orgId', 'commonName'])
@Index('certificates_fingerprint_key', ['orgId', 'fingerprint'], { unique: true })
// Serial numbers issued by one of our CAs are never reused.
@Index('certificates_ca_serial_key', ['caId', 'serialNumber'], { unique: true, where: 'ca_id IS NOT NULL' })
export class Certificate {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) commonName!: string;
  @Column({ type: 'text' }) serialNumber!: string;
  @Column({ type: 'text' }) fingerprint!: string;
  @Column({ type: 'text', default: '' }) issuer!: string;
  @Column({ type: 'text', default: '' }) subject!: string;
  @Column({ type: 'text', array: true, default: '{}' }) sans!: string[];
  @Column({ type: 'timestamptz' }) notBefore!: Date;
  @Column({ type: 'timestamptz' }) notAfter!: Date;
  @Column({ type: 'text' }) keyAlgorithm!: string;
  @Column() keyLength!: number;
  @Column({ type: 'text' }) signatureAlgorithm!: string;
  @Column({ type: 'text' }) certificatePem!: string;
  /** Issuer chain, PEM, leaf's issuer first. */
  @Column({ type: 'text', default: '' }) chainPem!: string;
  @Column({ type: 'bytea', nullable: true, select: false }) privateKey!: Buffer | null;
  @Column({ type: 'bytea', nullable: true, select: false }) keyPassword!: Buffer | null;
  @Column({ type: 'text', default: 'PKCS12' }) storeType!: string;
  @Column({ type: 'int', nullable: true }) caId!: number | null;
  @Column({ type: 'text', default: '' }) template!: string;
  /** self-signed, signed, imported, discovered */
  @Column({ type: 'text' }) source!: string;
  @Column({ type: 'timestamptz', nullable: true }) revokedAt!: Date | null;
  @Column({ type: 'int', nullable: true }) revokeReason!: number | null;
  @Column({ type: 'text', default: '' }) notificationEmail!: string;
  @Column({ type: 'text', default: '' }) createdByName!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
