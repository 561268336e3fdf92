import { IsOptional } from 'class-validator';
import { OneOf, OptionalText } from '@app/http';

/** Extension: share a resource group like a resource (ACCESSTYPE and USERID or USERGROUPID). */
export class ShareGroupDto {
  @OneOf(['view', 'read', 'modify', 'fullaccess', 'revoke'], false) ACCESSTYPE!: string;
  @OptionalText(12) USERID?: string;
  @OptionalText(12) USERGROUPID?: string;
}

/** Extension: add resources to a static group, by ids (a list or comma-separated text). */
export class GroupMembersDto {
  @IsOptional() RESOURCEIDS?: unknown;
}
