import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A keystore file imported from the unmanaged-certificate shared path, by content hash. */
@Entity('unmanaged_cert_imports')
@Index('unmanaged_cert_imports_org_sha_key', ['orgId', 'fileSha256'], { unique: true })
export class UnmanagedCertImport {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  /** Relative to UNMANAGED_CERT_PATH, as listed. */
  @Column({ type: 'text' }) filePath!: string;
  @Column({ type: 'text' }) fileSha256!: string;
  /** SHA-256 fingerprints (as in certificates.fingerprint) of the certificates it held. */
  @Column({ type: 'text', array: true, default: '{}' }) fingerprints!: string[];
  @Column({ type: 'text', default: '' }) importedByName!: string;
  @CreateDateColumn({ type: 'timestamptz' }) importedAt!: Date;
}
