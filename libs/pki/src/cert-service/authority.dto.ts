import { OneOf, OptionalInteger, OptionalText, RequiredText } from '@app/http';

/** createCA: the extra operation that makes a root or intermediate CA (docs/api/pki.md). */
export class CreateCaDto {
  @RequiredText(100) caName!: string;
  @OneOf(['root', 'intermediate']) caType?: string;
  @OptionalText(255) parentCaName?: string;
  @OptionalText(64) CNAME?: string;
  @OptionalText(64) ORGUNIT?: string;
  @OptionalText(64) ORG?: string;
  @OptionalText(128) LOCATION?: string;
  @OptionalText(128) STATE?: string;
  @OptionalText(2) COUNTRY?: string;
  @OptionalText(10) ALG?: string;
  @OptionalText(10) LEN?: string;
  @OptionalText(40) SIGALG?: string;
  /** Days; default 3650 for a root, 1825 for an intermediate. */
  @OptionalInteger(1, 36_600) VALIDITY?: number;
  @OptionalInteger(0, 10) pathLength?: number;
}
