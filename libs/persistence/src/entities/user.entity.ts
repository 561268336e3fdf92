import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const ROLES = [
  'Administrator',
  'Password Administrator',
  'Privileged Administrator',
  'Password Auditor',
  'Password User',
] as const;
export type RoleName = (typeof ROLES)[number];

@Entity('users')
@Index('users_org_username_key', ['orgId', 'usernameKey'], { unique: true })
export class User {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) username!: string;
  /** lower(username): user names are unique case-insensitively within an organisation. */
  @Column({ type: 'text' }) usernameKey!: string;
  @Column({ type: 'text', default: '' }) firstName!: string;
  @Column({ type: 'text', default: '' }) lastName!: string;
  @Column({ type: 'text', default: '' }) fullName!: string;
  @Column({ type: 'text', default: '' }) email!: string;
  @Column({ type: 'text' }) role!: RoleName;
  @Column({ default: false }) isSuperAdmin!: boolean;
  @Column({ default: false }) isApiUser!: boolean;
  @Column({ type: 'text', default: '' }) department!: string;
  @Column({ type: 'text', default: '' }) location!: string;
  /** Password policy applied to this user's own login password. */
  @Column({ type: 'text', default: 'Strong' }) policy!: string;
  /** Hosts, addresses or CIDR ranges (comma separated) the user may call from; empty = anywhere. */
  @Column({ type: 'text', default: '' }) allowedHosts!: string;
  /** Last day of access (inclusive); null = never expires. */
  @Column({ type: 'date', nullable: true }) expiresOn!: string | null;
  @Column({ default: false }) locked!: boolean;
  @Column({ type: 'text', nullable: true, select: false }) passwordHash!: string | null;
  /** Contact and two-factor settings that the server stores but does not act on. */
  @Column({ type: 'jsonb', default: {} }) profile!: Record<string, string>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt!: Date;
}
