import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('csrs')
export class Csr {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) commonName!: string;
  @Column({ type: 'text' }) csrPem!: string;
  @Column({ type: 'bytea', nullable: true, select: false }) privateKey!: Buffer | null;
  @Column({ type: 'bytea', nullable: true, select: false }) keyPassword!: Buffer | null;
  @Column({ type: 'text' }) keyAlgorithm!: string;
  @Column() keyLength!: number;
  @Column({ type: 'text' }) signatureAlgorithm!: string;
  @Column({ type: 'text', default: '' }) validity!: string;
  @Column({ type: 'text', default: 'days' }) validityType!: string;
  @Column({ type: 'text', default: 'PKCS12' }) storeType!: string;
  @Column({ type: 'text', default: '' }) email!: string;
  @Column({ type: 'text', default: '' }) createdByName!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
