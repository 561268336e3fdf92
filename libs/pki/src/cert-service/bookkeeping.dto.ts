import { IsArray, IsOptional } from 'class-validator';
import { OneOf, OptionalBoolean, OptionalText, RequiredText } from '@app/http';
import { CertificateSelectorDto } from './certificate.dto';

/**
 * updateSSLAdditionalFields (KMP K2): values of the additional fields an administrator defined,
 * as `[{ADDITIONALFIELDNAME, ADDITIONALFIELDVALUE}]` (checked by parseFieldData).
 */
export class AdditionalFieldsDto extends CertificateSelectorDto {
  @IsOptional() @IsArray({ message: 'sslAdditionalFieldData must be a list of {ADDITIONALFIELDNAME, ADDITIONALFIELDVALUE}' })
  sslAdditionalFieldData?: unknown[];
}

/** updateSSLCertificateDetails (KMP K1): bookkeeping only, never the certificate itself. */
export class CertificateDetailsUpdateDto extends AdditionalFieldsDto {
  @OptionalText(2000) description?: string;
  @OptionalText(255) dns_name?: string;
  /** The expiry-notice recipients, as setCertificateNotificationEmail's Email. */
  @OptionalText(1000) email_address?: string;
  @OptionalBoolean() isAutoDeploy?: boolean;
}

/** exportCSR (KMP K3): the request, its key, or its key store. */
export class ExportCsrDto {
  @RequiredText(20) CSR_ID!: string;
  @OneOf(['CSR', 'PrivateKey', 'KeyStore']) fileType?: string;
}

/** deleteCertificate (p24) with KMP's exclusion: a deleted certificate discovery must not bring back. */
export class DeleteCertificateDto extends CertificateSelectorDto {
  @OptionalBoolean() exclude_certificate?: boolean;
  @OptionalText(1000) reason?: string;
}
