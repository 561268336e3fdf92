import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** A host reachable over SSH, with the (sealed) credentials used to manage it. */
@Entity('ssh_resources')
@Index('ssh_resources_org_name_key', ['orgId', 'nameKey'], { unique: true })
export class SshResource {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) nameKey!: string;
  @Column({ type: 'text' }) address!: string;
  @Column({ default: 22 }) port!: number;
  @Column({ type: 'text', default: '' }) description!: string;
  @Column({ type: 'text', default: '' }) landingServer!: string;
  @Column({ type: 'text', nullable: true }) loginUser!: string | null;
  @Column({ type: 'bytea', nullable: true, select: false }) loginPassword!: Buffer | null;
  @Column({ default: false }) loginIsAdmin!: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}

/** Login users found on a host by enumeration. */
@Entity('ssh_users')
export class SshUser {
  @PrimaryColumn() sshResourceId!: number;
  @PrimaryColumn({ type: 'text' }) userName!: string;
  @CreateDateColumn({ type: 'timestamptz' }) foundAt!: Date;
}

/** A key whose public line we placed in a user's authorized_keys on a host. */
@Entity('ssh_key_associations')
export class SshKeyAssociation {
  @PrimaryColumn() sshKeyId!: number;
  @PrimaryColumn() sshResourceId!: number;
  @PrimaryColumn({ type: 'text' }) userName!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
