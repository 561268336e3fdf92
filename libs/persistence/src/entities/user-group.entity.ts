import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

@Entity('user_groups')
@Index('user_groups_org_name_key', ['orgId', 'nameKey'], { unique: true })
export class UserGroup {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) nameKey!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}

@Entity('user_group_members')
export class UserGroupMember {
  @PrimaryColumn() groupId!: number;
  @Index() @PrimaryColumn() userId!: number;
}
