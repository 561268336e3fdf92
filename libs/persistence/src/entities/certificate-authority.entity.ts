import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('certificate_authorities')
export class CertificateAuthority {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'text', unique: true }) name!: string;
  @Column({ type: 'text' }) kind!: 'root' | 'intermediate';
  @Column({ type: 'int', nullable: true }) parentId!: number | null;
  @Column({ type: 'text' }) commonName!: string;
  @Column({ type: 'text' }) serialNumber!: string;
  @Column({ type: 'text' }) certificatePem!: string;
  @Column({ type: 'bytea', select: false }) privateKey!: Buffer;
  @Column({ type: 'text' }) keyAlgorithm!: string;
  @Column({ type: 'bigint', default: 0 }) crlNumber!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
