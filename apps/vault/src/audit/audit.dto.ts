import { OneOf, OptionalInteger, OptionalText } from '@app/http';

export const AUDIT_PAGE_MAX = 1000;

/** Op 51: GET /audit?AUDITTYPE=&STARTINDEX=&LIMIT=&DURATION= (+ FROMDATE/TODATE and BEFOREID extensions). */
export class AuditQueryDto {
  @OneOf(['Resource', 'User']) AUDITTYPE?: 'Resource' | 'User';
  /** Zero-based index of the first entry, newest first. */
  @OptionalInteger(0, 100_000_000) STARTINDEX?: number;
  @OptionalInteger(1, AUDIT_PAGE_MAX) LIMIT?: number;
  @OneOf(['TODAY', 'YESTERDAY', 'LAST_7_DAYS']) DURATION?: 'TODAY' | 'YESTERDAY' | 'LAST_7_DAYS';
  @OptionalText(30) FROMDATE?: string;
  @OptionalText(30) TODATE?: string;
  /** Keyset paging: entries older than this AUDITID (STARTINDEX is then ignored). */
  @OptionalText(20) BEFOREID?: string;
  /** Extensions (the console's filters): who acted, the operation, a resource name (part of it, any case). */
  @OptionalText(255) USERNAME?: string;
  @OptionalText(100) OPERATIONTYPE?: string;
  @OptionalText(255) RESOURCENAME?: string;
}
