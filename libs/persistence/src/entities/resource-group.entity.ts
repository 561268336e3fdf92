import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export interface GroupCriterion {
  field: string;
  operator: string;
  value: string;
}

/** Static groups list their members; dynamic groups match resources live by criteria. */
@Entity('resource_groups')
@Index('resource_groups_org_name_key', ['orgId', 'nameKey'], { unique: true })
export class ResourceGroup {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) nameKey!: string;
  @Column({ type: 'text', default: '' }) description!: string;
  @Column({ type: 'text' }) kind!: 'static' | 'dynamic';
  @Column({ type: 'text', default: 'and' }) matchMode!: 'and' | 'or';
  @Column({ type: 'jsonb', default: [] }) criteria!: GroupCriterion[];
  @Column({ default: false }) noHelpdeskRetrieval!: boolean;
  @Column({ type: 'int', nullable: true }) createdBy!: number | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}

@Entity('resource_group_members')
export class ResourceGroupMember {
  @PrimaryColumn() groupId!: number;
  @Index() @PrimaryColumn() resourceId!: number;
}
