import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Administrator-defined policies; the built-in ones (Strong, Medium, Low) live in code. */
@Entity('password_policies')
@Index('password_policies_org_name_key', ['orgId', 'nameKey'], { unique: true })
export class PasswordPolicyRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) nameKey!: string;
  @Column() minLength!: number;
  @Column() maxLength!: number;
  @Column({ default: 0 }) minLower!: number;
  @Column({ default: 0 }) minUpper!: number;
  @Column({ default: 0 }) minDigits!: number;
  @Column({ default: 0 }) minSpecial!: number;
  @Column({ type: 'text', default: '' }) specialChars!: string;
  @Column({ type: 'text', default: '' }) excludedChars!: string;
  @Column({ type: 'text', default: 'any' }) firstChar!: string;
  @Column({ default: 0 }) noReuseLast!: number;
  @Column({ default: 0 }) maxAgeDays!: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
