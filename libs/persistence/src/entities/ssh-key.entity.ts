import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity('ssh_keys')
@Index('ssh_keys_org_name_key', ['orgId', 'nameKey'], { unique: true })
export class SshKey {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) nameKey!: string;
  @Column({ type: 'text' }) keyType!: string;
  @Column() keyLength!: number;
  @Column({ type: 'text', default: '' }) comment!: string;
  @Column({ type: 'text' }) publicKey!: string;
  @Column({ type: 'text' }) fingerprint!: string;
  /** Sealed private key text (OpenSSH or PEM, as generated or imported). */
  @Column({ type: 'bytea', select: false }) privateKey!: Buffer;
  @Column({ type: 'bytea', nullable: true, select: false }) passphrase!: Buffer | null;
  @Column({ type: 'int', nullable: true }) createdBy!: number | null;
  @Column({ type: 'text', default: '' }) createdByName!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
