import { OneOf, OptionalBoolean, OptionalInteger, OptionalText, RequiredInteger } from '@app/http';

export class ImportCsrDto {
  @OptionalText(256) password?: string;
  @OptionalText(1000) Email?: string;
}

/**
 * signCSR (pki op 31). MSCA is KMP's name for ENTCA, and MSCAusingAgent (KMP 7030+, a Windows
 * agent in front of the Microsoft CA) is one more: our CAs are in-process, so the agent's name
 * and time-out are accepted and, like serverName, have nothing to act on.
 */
export class SignCsrDto {
  @OneOf(['ENTCA', 'MSCA', 'MSCAusingAgent', 'signWithRoot']) signType?: string;
  @RequiredInteger(1) CSR_ID!: number;
  @OptionalText(255) serverName?: string;
  @OptionalText(255) agentName?: string;
  @OptionalInteger(1, 86_400) agentResponseTimeout?: number;
  @OptionalText(255) caName?: string;
  @OptionalText(100) templateName?: string;
  @OptionalText(255) rootCertificateCommonName?: string;
  @OptionalText(100) rootCertificateSerialNumber?: string;
  @OptionalInteger(1, 36_600) Validity?: number;
  @OptionalBoolean() isIntermediate?: boolean;
  /** Expiry Notification Email of the certificate; default: the one given with the CSR. */
  @OptionalText(1000) Email?: string;
}
