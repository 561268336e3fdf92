import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One expiry notice: a certificate, a threshold (days before expiry) and the expiry it is about. */
@Entity('certificate_expiry_notices')
@Index('certificate_expiry_notices_once', ['certificateId', 'thresholdDays', 'notAfter'], { unique: true })
export class CertificateExpiryNotice {
  @PrimaryGeneratedColumn() id!: number;
  @Column() certificateId!: number;
  @Column() thresholdDays!: number;
  @Column({ type: 'timestamptz' }) notAfter!: Date;
  /** pending, sent, or failed (gave up after the last attempt). */
  @Column({ type: 'text', default: 'pending' }) status!: string;
  @Column({ default: 0 }) attempts!: number;
  @Column({ type: 'timestamptz', default: () => 'now()' }) nextAttemptAt!: Date;
  @Column({ type: 'text', nullable: true }) lastError!: string | null;
  @Column({ type: 'timestamptz', nullable: true }) sentAt!: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
