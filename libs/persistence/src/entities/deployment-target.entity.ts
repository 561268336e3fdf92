import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A server certificates are deployed to over SSH. */
@Entity('deployment_targets')
@Index('deployment_targets_org_name_key', ['orgId', 'nameKey'], { unique: true })
export class DeploymentTarget {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) nameKey!: string;
  @Column() sshResourceId!: number;
  @Column({ type: 'text' }) certificatePath!: string;
  @Column({ type: 'text' }) keyPath!: string;
  @Column({ type: 'text', default: '' }) chainPath!: string;
  @Column({ type: 'text', default: '' }) reloadCommand!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
