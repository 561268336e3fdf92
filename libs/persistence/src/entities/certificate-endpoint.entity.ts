import { Column, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Where a certificate was found by discovery, with the last vulnerability scan there. */
@Entity('certificate_endpoints')
@Index('certificate_endpoints_host_port_key', ['orgId', 'host', 'port'], { unique: true })
export class CertificateEndpoint {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Index() @Column() certificateId!: number;
  @Column({ type: 'text' }) host!: string;
  @Column() port!: number;
  @Column({ type: 'text', default: '' }) ip!: string;
  @Column({ type: 'jsonb', nullable: true }) scan!: Record<string, unknown> | null;
  @UpdateDateColumn({ type: 'timestamptz' }) lastSeenAt!: Date;
}
