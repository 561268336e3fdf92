import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Key vault: arbitrary key files kept sealed, exported byte for byte. */
@Entity('key_vault_keys')
@Index('key_vault_keys_org_name_key', ['orgId', 'nameKey'], { unique: true })
export class KeyVaultKey {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) nameKey!: string;
  @Column({ type: 'text', default: '' }) description!: string;
  @Column({ type: 'text', default: '' }) datacenter!: string;
  @Column({ type: 'text', default: '' }) instanceName!: string;
  @Column({ type: 'text', default: '' }) keyType!: string;
  @Column({ type: 'text' }) fileName!: string;
  @Column({ type: 'bytea', select: false }) content!: Buffer;
  @Column({ type: 'bytea', nullable: true, select: false }) passphrase!: Buffer | null;
  @Column({ type: 'text', default: '' }) createdByName!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt!: Date;
}
