import { IsEmail, IsOptional, Matches } from 'class-validator';
import { OneOf, OptionalBoolean, OptionalText, RequiredText } from '@app/http';
import { ROLES } from '@app/persistence';

const USERNAME = /^[\p{L}\p{N}._@\\-]+$/u;
const USERNAME_MESSAGE = 'USERNAME may contain letters, digits and . _ - @ \\ only';
const PHONE = /^[0-9 ()+-]{1,30}$/;
const COUNTRY_CODE = /^\+?\d{1,4}$/;

class UserFields {
  @Matches(USERNAME, { message: USERNAME_MESSAGE }) @RequiredText(100) USERNAME!: string;
  @IsOptional() @IsEmail({}, { message: 'EMAIL must be an email address' }) EMAIL?: string;
  @OptionalText(100) POLICY?: string;
  @OneOf(ROLES) ROLE?: (typeof ROLES)[number];
  @OptionalBoolean() ISSUPERADMIN?: boolean;
  @OptionalBoolean() ISAPIUSER?: boolean;
  @OptionalText(255) DEPARTMENT?: string;
  @OptionalText(255) LOCATION?: string;
}

/** Op 23, POST /restapi/json/v1/user. */
export class CreateUserDto extends UserFields {
  @OptionalText(255) FULLNAME?: string;
  @OptionalText(2000) HOSTNAME?: string;
  @OptionalText(20) EXPIRYDATE?: string;
}

/** Op 17, POST /api/pki/restapi/user: names, a login password, address binding and contact/two-factor settings. */
export class CreateUserBDto extends UserFields {
  @OptionalText(100) FIRSTNAME?: string;
  @OptionalText(100) LASTNAME?: string;
  // Kept exactly as sent: a password is not trimmed.
  @OptionalText(256) PASSWORD?: string;
  @OptionalText(2000) ALLOWEDIPADDRESS?: string;
  @OptionalBoolean() ENABLEMOBILEACCESS?: boolean;
  @IsOptional() @Matches(COUNTRY_CODE, { message: 'LANDLINE_COUNTRYCODE must be a country calling code such as +44' }) LANDLINE_COUNTRYCODE?: string;
  @IsOptional() @Matches(PHONE, { message: 'LANDLINE must be a telephone number' }) LANDLINE?: string;
  @IsOptional() @Matches(/^\d{1,10}$/, { message: 'LANDLINE_EXT must be digits' }) LANDLINE_EXT?: string;
  @IsOptional() @Matches(COUNTRY_CODE, { message: 'MOBILE_COUNTRYCODE must be a country calling code such as +44' }) MOBILE_COUNTRYCODE?: string;
  @IsOptional() @Matches(PHONE, { message: 'MOBILE must be a telephone number' }) MOBILE?: string;
  @OptionalText(255) EXTAUTH1_USERNAME?: string;
  @OptionalText(255) EXTAUTH2_USERNAME?: string;
  @OptionalBoolean() ENABLETWOFACTOR?: boolean;
  @OneOf(['landline', 'mobile']) PRIMARYCONTACT?: 'landline' | 'mobile';
}

/** Ops 42, 43, 45, 46: USERNAME from the query (or INPUT_DATA). */
export class UserNameDto {
  @RequiredText(100) USERNAME!: string;
}

/** PAM360's GET /user/getUserGroupId?USERGROUPNAME= (sibling of op 42). */
export class UserGroupNameDto {
  @RequiredText(255) USERGROUPNAME!: string;
}

/** PAM360's POST /organizations/manage (camelCase inside Details; ids as numbers or strings). */
export class ManageOrgAccessDto {
  @IsOptional() userIds?: unknown;
  @IsOptional() userGroupIds?: unknown;
  @IsOptional() orgIds?: unknown;
  @OneOf(['grant', 'revoke'], false) managePermission!: 'grant' | 'revoke';
  @IsOptional() approvalAdminId?: unknown;
}

/** Op 44. */
export class AddToUserGroupDto {
  @RequiredText(100) USERNAME!: string;
  @RequiredText(255) USERGROUPNAME!: string;
}
