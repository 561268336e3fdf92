import { AppError } from '@app/http';

/** Types whose resources hold something other than host accounts; a resource never changes into or out of them. */
export const FILE_TYPES = ['File Store', 'License Store'] as const;
export const SPECIAL_TYPES = [...FILE_TYPES, 'Key Store', 'AWS IAM', 'MS Azure'] as const;

/** The types this server knows by name; any other text is kept as a custom type. */
export const KNOWN_RESOURCE_TYPES = [
  'Windows',
  'WindowsDomain',
  'Linux',
  'Unix',
  'Mac',
  'Solaris',
  'AIX',
  'HP UX',
  'Cisco IOS',
  'Juniper Netscreen',
  'VMware ESXi',
  'MS SQL Server',
  'MySQL Server',
  'Oracle DB Server',
  'PostgreSQL',
  'LDAP Server',
  'Web Site Accounts',
  'Generic Keys',
  ...SPECIAL_TYPES,
] as const;

/** The type of a resource created without RESOURCETYPE (PAM360: the server's default type). */
export const DEFAULT_RESOURCE_TYPE = 'Linux';

/** The known spelling of a type (matched ignoring case), or the text as sent. */
export function canonicalType(type: string): string {
  const wanted = type.trim().toLowerCase();
  return KNOWN_RESOURCE_TYPES.find((t) => t.toLowerCase() === wanted) ?? type.trim();
}

export function isFileType(type: string): boolean {
  return (FILE_TYPES as readonly string[]).includes(canonicalType(type));
}

function isSpecialType(type: string): boolean {
  return (SPECIAL_TYPES as readonly string[]).includes(canonicalType(type));
}

/** Op 17a: Key Store, File Store, License Store and the cloud types neither change nor are changed into. */
export function checkTypeChange(from: string, to: string): void {
  if (canonicalType(from).toLowerCase() === canonicalType(to).toLowerCase()) return;
  if (isSpecialType(from)) throw AppError.invalid(`A ${canonicalType(from)} resource cannot be changed to another type`);
  if (isSpecialType(to)) throw AppError.invalid(`A ${canonicalType(from)} resource cannot be changed to ${canonicalType(to)}`);
}
