import { OptionalInteger } from '@app/http';

/** Our paging extension (same names as the vault's audit): STARTINDEX is 1-based. */
export class PkiAuditQueryDto {
  @OptionalInteger(0, 1_000_000_000) STARTINDEX?: number;
  @OptionalInteger(1, 1000) LIMIT?: number;
}
