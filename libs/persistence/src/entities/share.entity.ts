import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type AccessType = 'view' | 'modify' | 'fullaccess';

/** Grants one user or user group access to a resource, one account, or a resource group. */
@Entity('shares')
@Check(`num_nonnulls(user_id, user_group_id) = 1`)
@Check(`num_nonnulls(resource_id, resource_group_id) = 1`)
@Index(['resourceId'])
@Index(['userId'])
@Index(['userGroupId'])
export class Share {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'int', nullable: true }) resourceId!: number | null;
  /** Set for an account-level share (resourceId is then the account's resource). */
  @Column({ type: 'int', nullable: true }) accountId!: number | null;
  @Column({ type: 'int', nullable: true }) resourceGroupId!: number | null;
  @Column({ type: 'int', nullable: true }) userId!: number | null;
  @Column({ type: 'int', nullable: true }) userGroupId!: number | null;
  @Column({ type: 'text' }) accessType!: AccessType;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
