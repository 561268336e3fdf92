import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The names an organisation may have certificates for from one CA (signCSR and ACME on a
 * server-wide CA; ACME on its own CA): see libs/pki cert-service/allowed-names.ts.
 */
@Entity('ca_allowed_names')
export class CaAllowedNames {
  @PrimaryColumn() orgId!: number;
  @PrimaryColumn() caId!: number;
  @Column({ type: 'text', array: true, default: '{}' }) names!: string[];
  @Column({ type: 'timestamptz', default: () => 'now()' }) updatedAt!: Date;
}

/** An External Account Binding key: who may open an ACME account, for which organisation and CA. */
@Entity('acme_eab_keys')
export class AcmeEabKey {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'text', unique: true }) keyId!: string;
  /** Sealed (Keyring, context acme_eab_keys.hmac_key). */
  @Column({ type: 'bytea', select: false }) hmacKey!: Buffer;
  @Column() orgId!: number;
  @Column() caId!: number;
  @Column({ type: 'text', default: 'WebServer' }) template!: string;
  @Column({ type: 'text', default: '' }) createdByName!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}

/** Single-use Replay-Nonce values, shared by every instance. */
@Entity('acme_nonces')
export class AcmeNonce {
  @PrimaryColumn({ type: 'text' }) value!: string;
  @Index('acme_nonces_created_at') @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}

@Entity('acme_accounts')
export class AcmeAccount {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column() caId!: number;
  /** An EAB key opens one account. */
  @Column({ unique: true }) eabKeyId!: number;
  /** RFC 7638 thumbprint of the account key: one account per key. */
  @Column({ type: 'text', unique: true }) thumbprint!: string;
  @Column({ type: 'jsonb' }) jwk!: Record<string, unknown>;
  @Column({ type: 'text', default: 'valid' }) status!: string;
  @Column({ type: 'text', array: true, default: '{}' }) contact!: string[];
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}

@Entity('acme_orders')
export class AcmeOrder {
  @PrimaryGeneratedColumn() id!: number;
  @Index('acme_orders_account_id') @Column() accountId!: number;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'jsonb' }) identifiers!: { type: string; value: string }[];
  @Column({ type: 'timestamptz', nullable: true }) notBefore!: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) notAfter!: Date | null;
  @Column({ type: 'timestamptz' }) expires!: Date;
  @Column({ type: 'jsonb', nullable: true }) error!: unknown;
  @Index('acme_orders_certificate_id') @Column({ type: 'int', nullable: true }) certificateId!: number | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}

@Entity('acme_authorizations')
export class AcmeAuthorization {
  @PrimaryGeneratedColumn() id!: number;
  @Index('acme_authorizations_order_id') @Column() orderId!: number;
  @Column({ type: 'text' }) identifierType!: string;
  @Column({ type: 'text' }) identifierValue!: string;
  @Column({ type: 'text', default: 'pending' }) status!: string;
  @Column({ type: 'timestamptz' }) expires!: Date;
}

@Entity('acme_challenges')
export class AcmeChallenge {
  @PrimaryGeneratedColumn() id!: number;
  @Index('acme_challenges_authorization_id') @Column() authorizationId!: number;
  @Column({ type: 'text' }) type!: string;
  @Column({ type: 'text' }) token!: string;
  @Column({ type: 'text', default: 'pending' }) status!: string;
  @Column({ type: 'timestamptz', nullable: true }) validatedAt!: Date | null;
  @Column({ type: 'jsonb', nullable: true }) error!: unknown;
}
