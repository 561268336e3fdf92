import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('organizations')
export class Organization {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'text', unique: true }) name!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
