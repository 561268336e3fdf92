import { OneOf, OptionalBoolean, OptionalInteger, OptionalText, RequiredInteger, RequiredText } from '@app/http';

export const STORE_TYPES = ['PKCS12', 'JKS'] as const;

/** createCertificate and createCSR (pki ops 28, 32; vault ops 40, 41). */
export class CertificateRequestDto {
  @RequiredText(64) CNAME!: string;
  @OptionalText(4000) ALT_NAMES?: string;
  @OptionalText(64) ORGUNIT?: string;
  @OptionalText(64) ORG?: string;
  @OptionalText(128) LOCATION?: string;
  @OptionalText(128) STATE?: string;
  @OptionalText(2) COUNTRY?: string;
  /** Protects the stored key and every keystore exported from it. */
  @OptionalText(256) PASSWORD?: string;
  @OneOf(['days', 'hours', 'minutes']) VALIDITY_TYPE?: string;
  @OptionalInteger(1, 36_600 * 24 * 60) VALIDITY?: number;
  @OptionalText(10) ALG?: string;
  @OptionalText(10) LEN?: string;
  @OptionalText(40) SIGALG?: string;
  @OneOf(STORE_TYPES) StoreType?: string;
  /** Expiry Notification Email: where expiry notices go (see notification-email.ts). */
  @OptionalText(1000) Email?: string;
}

/** common_name with an optional serial_number: picks one certificate. */
export class CertificateSelectorDto {
  @RequiredText(255) common_name!: string;
  @OptionalText(100) serial_number?: string;
}

export class GetCertificateDto extends CertificateSelectorDto {
  @OptionalText(20) fileType?: string;
}

export class CertificateListDto {
  @OptionalInteger(0, 100_000) withExpiryDaysLessThan?: number;
  @OptionalInteger(1, 16_384) withKeyLength?: number;
  @OptionalText(60) withSignatureAlgorithm?: string;
  /** KMP: only certificates whose private key this server holds. */
  @OptionalBoolean() withPrivateKey?: boolean;
}

export class AddCertificateDto {
  @OneOf(['CERTFILE', 'KEYSTORE']) fileType?: string;
  @OptionalText(256) PASSWORD?: string;
  @OptionalText(1000) Email?: string;
}

/** setCertificateNotificationEmail: an empty Email stops the notices. */
export class NotificationEmailDto extends CertificateSelectorDto {
  @OptionalText(1000) Email?: string;
}

export class RevokeCertificateDto extends CertificateSelectorDto {
  @RequiredInteger(0, 7) revoke_reason!: number;
}
