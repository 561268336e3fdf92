import { IsOptional } from 'class-validator';
import { OneOf, OptionalInteger, OptionalText } from '@app/http';

/** Extension: share a resource group like a resource (ACCESSTYPE and USERID or USERGROUPID). */
export class ShareGroupDto {
  @OneOf(['view', 'read', 'modify', 'fullaccess', 'revoke'], false) ACCESSTYPE!: string;
  @OptionalText(12) USERID?: string;
  @OptionalText(12) USERGROUPID?: string;
}

/** Add resources to (or take them out of) a static group, by ids: a list of numbers or digit strings, or comma-separated text. */
export class GroupMembersDto {
  @IsOptional() RESOURCEIDS?: unknown;
}

/** PAM360 GET /resourcegroup (lower-case `details` wrapper, camelCase fields; all optional). */
export class ResourceGroupListDto {
  @OptionalInteger(1, 100_000) limit?: number;
  @OptionalInteger(0, 100_000_000) startIndex?: number;
  @OneOf(['static', 'dynamic', 'all']) searchType?: 'static' | 'dynamic' | 'all';
  @OptionalText(255) searchValue?: string;
  @OneOf(['resourceGroupName', 'resourceGroupDescription', 'ownerId', 'all']) searchColumn?: string;
}

/** PAM360 PUT /resourcegroup/share: several groups to several users or user groups at once. */
export class BulkShareGroupsDto {
  @OneOf(['view', 'read', 'modify', 'fullaccess', 'revoke'], false) accessType!: string;
  @IsOptional() resourceGroupIds?: unknown;
  @IsOptional() userIds?: unknown;
  @IsOptional() userGroupIds?: unknown;
}
