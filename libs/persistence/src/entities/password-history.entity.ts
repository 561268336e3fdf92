import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Every replaced password, sealed, so that no change ever loses a secret. */
@Entity('password_history')
// The reuse check reads an account's newest entries (see the PasswordHistoryRecent migration).
@Index('password_history_account_recent', ['accountId', 'id'])
export class PasswordHistory {
  @PrimaryGeneratedColumn() id!: number;
  @Column() accountId!: number;
  @Column({ type: 'bytea', select: false }) password!: Buffer;
  @Column({ type: 'int', nullable: true }) changedBy!: number | null;
  @CreateDateColumn({ type: 'timestamptz' }) replacedAt!: Date;
}
