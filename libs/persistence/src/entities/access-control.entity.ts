import { Column, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * Password access control for one account, or for every account of a resource
 * (accountId null); an account-level row wins over the resource-level one.
 */
@Entity('access_controls')
@Index('access_controls_target_key', ['resourceId', 'accountId'], { unique: true, where: 'account_id IS NOT NULL' })
@Index('access_controls_resource_key', ['resourceId'], { unique: true, where: 'account_id IS NULL' })
export class AccessControl {
  @PrimaryGeneratedColumn() id!: number;
  @Column() resourceId!: number;
  @Column({ type: 'int', nullable: true }) accountId!: number | null;
  @Column({ default: true }) approvalRequired!: boolean;
  @Column({ default: 1 }) approversRequired!: number;
  /** When true, any administrator of the organisation may approve. */
  @Column({ default: true }) adminsApprove!: boolean;
  @Column({ type: 'int', array: true, default: '{}' }) approverUserIds!: number[];
  @Column({ type: 'int', array: true, default: '{}' }) approverGroupIds!: number[];
  @Column({ default: true }) exclusive!: boolean;
  /** Fractions allowed (tests use seconds). */
  @Column({ type: 'double precision', default: 30 }) checkoutMinutes!: number;
  @Column({ type: 'double precision', default: 1440 }) requestTtlMinutes!: number;
  @Column({ default: false }) reasonRequired!: boolean;
  @Column({ default: false }) resetAfterCheckin!: boolean;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt!: Date;
}
