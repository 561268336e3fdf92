import { IsArray, IsOptional } from 'class-validator';
import { OneOf, OptionalInteger, OptionalSecret, OptionalText, RequiredText } from '@app/http';
import { VIEW_TYPES } from './view-types';

const CUSTOM_FIELDS_MESSAGE = (field: string) => `${field} must be a list of {CUSTOMLABEL, CUSTOMVALUE}`;

/** Op 6 as PAM360 takes it: only RESOURCENAME is required (see newAccountOf and DEFAULT_RESOURCE_TYPE). */
export class CreateResourceDto {
  @RequiredText(255) RESOURCENAME!: string;
  @OptionalText(255) ACCOUNTNAME?: string;
  @OptionalText(100) RESOURCETYPE?: string;
  @OptionalSecret() PASSWORD?: string;
  @OptionalText(4000) NOTES?: string;
  @OptionalText(2000) RESOURCEURL?: string;
  @OptionalText(4000) RESOURCEDESCRIPTION?: string;
  @OptionalText(255) DNSNAME?: string;
  @OptionalText(255) LOCATION?: string;
  @OptionalText(255) DEPARTMENT?: string;
  @OptionalText(100) RESOURCEPASSWORDPOLICY?: string;
  @OptionalText(100) ACCOUNTPASSWORDPOLICY?: string;
  @OptionalText(255) OWNERNAME?: string;
  @OptionalText(255) RESOURCEGROUPNAME?: string;
  @IsOptional() @IsArray({ message: CUSTOM_FIELDS_MESSAGE('RESOURCECUSTOMFIELD') })
  RESOURCECUSTOMFIELD?: unknown[];
  @IsOptional() @IsArray({ message: CUSTOM_FIELDS_MESSAGE('ACCOUNTCUSTOMFIELD') })
  ACCOUNTCUSTOMFIELD?: unknown[];
}

/** Op 17a: every field optional; only the ones sent change. */
export class EditResourceDto {
  @OptionalText(255) RESOURCENAME?: string;
  @OptionalText(100) RESOURCETYPE?: string;
  @OptionalText(4000) RESOURCEDESCRIPTION?: string;
  @OptionalText(2000) RESOURCEURL?: string;
  @OptionalText(255) DNSNAME?: string;
  @OptionalText(255) LOCATION?: string;
  @OptionalText(255) DEPARTMENT?: string;
  @OptionalText(4000) NOTES?: string;
  @OptionalText(100) RESOURCEPASSWORDPOLICY?: string;
  @IsOptional() @IsArray({ message: CUSTOM_FIELDS_MESSAGE('RESOURCECUSTOMFIELD') })
  RESOURCECUSTOMFIELD?: unknown[];
  /** Asked by the gate when the edit changes where the stored credentials are sent (issue 24). */
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
}

/** GET /resources and GET /resources/{rid}/accounts: PAM360's search and paging, all optional. */
export class ResourceSearchDto {
  @OptionalText(50) SEARCHCOLUMN?: string;
  @OptionalText(255) SEARCHVALUE?: string;
  @OptionalText(50) SEARCHTYPE?: string;
  @OneOf(VIEW_TYPES) VIEWTYPE?: (typeof VIEW_TYPES)[number];
  @OptionalInteger(0, 100_000_000) STARTINDEX?: number;
  @OptionalInteger(1, 100_000) LIMIT?: number;
  /** A resource group: only its member resources (static list or rule match). */
  @OptionalInteger(1) GROUPID?: number;
}

export class ResourceAccountNamesDto {
  @RequiredText(255) RESOURCENAME!: string;
  @RequiredText(255) ACCOUNTNAME!: string;
}

export class ResourceAccountIdsDto {
  @RequiredText(12) RESOURCEID!: string;
  @RequiredText(12) ACCOUNTID!: string;
  @OptionalText(1000) REASON?: string;
  @OptionalText(200) TICKETID?: string;
}
