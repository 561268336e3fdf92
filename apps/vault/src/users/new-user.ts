import { RoleName } from '@app/persistence';
import { CreateUserBDto, CreateUserDto } from './user.dto';
import { parseExpiryDate, parseHostBinding } from './user-input';
import { AppError } from '@app/http';

/** One shape for both create operations (23 on prefix A, 17 on prefix B). */
export interface NewUser {
  username: string;
  role: RoleName;
  superAdmin: boolean;
  apiUser: boolean;
  firstName: string;
  lastName: string;
  fullName: string;
  email: string;
  policy?: string;
  department: string;
  location: string;
  allowedHosts: string;
  expiresOn: string | null;
  password?: string;
  profile: Record<string, string>;
}

// The least privilege when a client leaves ROLE out.
const DEFAULT_ROLE: RoleName = 'Password User';

export function fromPrefixA(dto: CreateUserDto): NewUser {
  return {
    username: dto.USERNAME,
    role: dto.ROLE ?? DEFAULT_ROLE,
    superAdmin: dto.ISSUPERADMIN ?? false,
    apiUser: dto.ISAPIUSER ?? false,
    firstName: '',
    lastName: '',
    fullName: dto.FULLNAME?.trim() || dto.USERNAME,
    email: dto.EMAIL ?? '',
    policy: dto.POLICY,
    department: dto.DEPARTMENT ?? '',
    location: dto.LOCATION ?? '',
    allowedHosts: parseHostBinding(dto.HOSTNAME, 'HOSTNAME'),
    expiresOn: parseExpiryDate(dto.EXPIRYDATE),
    profile: {},
  };
}

export function fromPrefixB(dto: CreateUserBDto): NewUser {
  const apiUser = dto.ISAPIUSER ?? false;
  if (!apiUser && !dto.PASSWORD) throw AppError.invalid('PASSWORD is required for a user who is not an API user');
  if (dto.ENABLETWOFACTOR && !dto.PRIMARYCONTACT && !dto.EXTAUTH1_USERNAME && !dto.EXTAUTH2_USERNAME) {
    throw AppError.invalid('ENABLETWOFACTOR needs PRIMARYCONTACT, EXTAUTH1_USERNAME or EXTAUTH2_USERNAME');
  }
  if (dto.PRIMARYCONTACT === 'mobile' && !dto.MOBILE) throw AppError.invalid('PRIMARYCONTACT mobile needs MOBILE');
  if (dto.PRIMARYCONTACT === 'landline' && !dto.LANDLINE) throw AppError.invalid('PRIMARYCONTACT landline needs LANDLINE');
  const profile: Record<string, string> = {};
  const copy = {
    ENABLEMOBILEACCESS: dto.ENABLEMOBILEACCESS,
    LANDLINE_COUNTRYCODE: dto.LANDLINE_COUNTRYCODE,
    LANDLINE: dto.LANDLINE,
    LANDLINE_EXT: dto.LANDLINE_EXT,
    MOBILE_COUNTRYCODE: dto.MOBILE_COUNTRYCODE,
    MOBILE: dto.MOBILE,
    EXTAUTH1_USERNAME: dto.EXTAUTH1_USERNAME,
    EXTAUTH2_USERNAME: dto.EXTAUTH2_USERNAME,
    ENABLETWOFACTOR: dto.ENABLETWOFACTOR,
    PRIMARYCONTACT: dto.PRIMARYCONTACT,
  };
  for (const [key, value] of Object.entries(copy)) if (value !== undefined && value !== '') profile[key] = String(value);
  const firstName = dto.FIRSTNAME?.trim() ?? '';
  const lastName = dto.LASTNAME?.trim() ?? '';
  return {
    username: dto.USERNAME,
    role: dto.ROLE ?? DEFAULT_ROLE,
    superAdmin: dto.ISSUPERADMIN ?? false,
    apiUser,
    firstName,
    lastName,
    fullName: [firstName, lastName].filter(Boolean).join(' ') || dto.USERNAME,
    email: dto.EMAIL ?? '',
    policy: dto.POLICY,
    department: dto.DEPARTMENT ?? '',
    location: dto.LOCATION ?? '',
    allowedHosts: parseHostBinding(dto.ALLOWEDIPADDRESS, 'ALLOWEDIPADDRESS'),
    expiresOn: null,
    password: dto.PASSWORD,
    profile,
  };
}
