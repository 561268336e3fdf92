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

/** The host key an SSH host must present (pinned per organisation, host and port). */
@Entity('ssh_host_keys')
@Index('ssh_host_keys_org_host_port', ['orgId', 'host', 'port'], { unique: true })
export class SshHostKey {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  /** Lower case, IPv6 without brackets. */
  @Column({ type: 'text' }) host!: string;
  @Column() port!: number;
  @Column({ type: 'text', default: '' }) keyType!: string;
  /** `SHA256:...` as ssh-keygen -lf prints it. */
  @Column({ type: 'text' }) fingerprint!: string;
  /** first-use, operator (given up front) or accepted. */
  @Column({ type: 'text' }) source!: string;
  @Column({ type: 'text', nullable: true }) refusedFingerprint!: string | null;
  @Column({ type: 'text', nullable: true }) refusedKeyType!: string | null;
  @Column({ type: 'timestamptz', nullable: true }) refusedAt!: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
  @Column({ type: 'timestamptz', default: () => 'now()' }) updatedAt!: Date;
}
