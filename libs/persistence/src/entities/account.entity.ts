import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('accounts')
@Index('accounts_resource_name_key', ['resourceId', 'nameKey'], { unique: true })
export class Account {
  @PrimaryGeneratedColumn() id!: number;
  @Column() resourceId!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) nameKey!: string;
  @Column({ type: 'text', default: '' }) notes!: string;
  @Column({ type: 'text', default: 'Strong' }) passwordPolicy!: string;
  /** Sealed (AES-256-GCM); never selected unless asked for. */
  @Column({ type: 'bytea', select: false }) password!: Buffer;
  @Column({ type: 'timestamptz', nullable: true }) passwordChangedAt!: Date | null;
  /** A remote change in flight: the new password, sealed before the target was touched. */
  @Column({ type: 'bytea', nullable: true, select: false }) pendingPassword!: Buffer | null;
  @Column({ type: 'timestamptz', nullable: true }) pendingSince!: Date | null;
  /** The last verification: IN SYNC, OUT OF SYNC or UNREACHABLE, and when. */
  @Column({ type: 'text', nullable: true }) passwordStatus!: string | null;
  @Column({ type: 'timestamptz', nullable: true }) lastVerifiedAt!: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) verifyClaimedAt!: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) lastAccessedAt!: Date | null;
  @Column({ default: false }) isFavourite!: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt!: Date;
}
