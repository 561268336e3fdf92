import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('resources')
@Index('resources_org_name_key', ['orgId', 'nameKey'], { unique: true })
export class Resource {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Index() @Column() ownerId!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) nameKey!: string;
  @Column({ type: 'text' }) type!: string;
  @Column({ type: 'text', default: '' }) description!: string;
  @Column({ type: 'text', default: '' }) dnsName!: string;
  @Column({ type: 'text', default: '' }) url!: string;
  @Column({ type: 'text', default: '' }) department!: string;
  @Column({ type: 'text', default: '' }) location!: string;
  @Column({ type: 'text', default: '' }) notes!: string;
  @Column({ type: 'text', default: 'Strong' }) passwordPolicy!: string;
  /** Admin credentials for remote password reset: the account used to log in to the host. */
  @Column({ type: 'int', nullable: true }) remoteAccountId!: number | null;
  @Column({ type: 'int', nullable: true }) remotePort!: number | null;
  /** What a connector needs besides host and port (see libs/connectors). */
  @Column({ type: 'text', nullable: true }) remoteDatabase!: string | null;
  @Column({ type: 'text', nullable: true }) remoteTls!: string | null;
  @Column({ type: 'text', nullable: true }) remoteCaCert!: string | null;
  @Column({ type: 'text', nullable: true }) remoteUserDn!: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt!: Date;
}
