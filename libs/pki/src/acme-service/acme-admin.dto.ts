import { OptionalText, RequiredText } from '@app/http';

/** createAcmeEabKey: an External Account Binding key for one CA and certificate profile. */
export class CreateEabKeyDto {
  @RequiredText(100) caName!: string;
  @OptionalText(100) templateName?: string;
}

/**
 * setAcmeAllowedDomains: the names an organisation may have certificates for from a CA
 * (comma-separated); orgName picks another organisation (provider's super administrator only).
 */
export class AllowedDomainsDto {
  @RequiredText(100) caName!: string;
  @OptionalText(20000) allowedDomains?: string;
  @OptionalText(200) orgName?: string;
}
