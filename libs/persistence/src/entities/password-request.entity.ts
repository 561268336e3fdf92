import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type RequestStatus =
  | 'waiting'
  | 'approved'
  | 'rejected'
  | 'checked_out'
  /** Checked in; a remote reset is in progress (the account stays in use). */
  | 'resetting'
  | 'checked_in'
  | 'expired';

@Entity('password_requests')
@Index(['accountId', 'status'])
@Index(['requesterId', 'status'])
// The database, not memory, guarantees a single active check-out per exclusive account.
@Index('password_requests_one_exclusive_checkout', ['accountId'], {
  unique: true,
  where: `status IN ('checked_out', 'resetting') AND exclusive`,
})
@Index('password_requests_one_open_per_requester', ['accountId', 'requesterId'], {
  unique: true,
  where: `status IN ('waiting', 'approved', 'checked_out', 'resetting')`,
})
export class PasswordRequest {
  @PrimaryGeneratedColumn() id!: number;
  @Column() accountId!: number;
  @Column() requesterId!: number;
  @Column({ type: 'text' }) status!: RequestStatus;
  @Column({ type: 'text', default: '' }) reason!: string;
  @Column({ type: 'text', default: '' }) ticketId!: string;
  @Column({ default: true }) exclusive!: boolean;
  @Column({ default: 1 }) approversRequired!: number;
  @Column({ type: 'int', array: true, default: '{}' }) approvedBy!: number[];
  @Column({ type: 'int', nullable: true }) decidedBy!: number | null;
  @CreateDateColumn({ type: 'timestamptz' }) requestedAt!: Date;
  /** Until when an unanswered (or approved, not yet used) request stays open. */
  @Column({ type: 'timestamptz' }) expiresAt!: Date;
  @Column({ type: 'timestamptz', nullable: true }) checkedOutAt!: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) checkoutUntil!: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) checkedInAt!: Date | null;
  @Column({ type: 'int', nullable: true }) checkedInBy!: number | null;
  /** The new password of a remote reset in progress, sealed, so a crash cannot lose it. */
  @Column({ type: 'bytea', nullable: true, select: false }) pendingPassword!: Buffer | null;
  @Column({ type: 'timestamptz', nullable: true }) resetStartedAt!: Date | null;
}
