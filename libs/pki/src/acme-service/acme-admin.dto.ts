import { OptionalText, RequiredText } from '@app/http';

/** createAcmeEabKey: an External Account Binding key for one CA and certificate profile. */
export class CreateEabKeyDto {
  @RequiredText(100) caName!: string;
  @OptionalText(100) templateName?: string;
}

/** setAcmeAllowedDomains: the names a CA may issue for through ACME (comma-separated). */
export class AllowedDomainsDto {
  @RequiredText(100) caName!: string;
  @OptionalText(20000) allowedDomains?: string;
}
