import { AppError } from '@app/http';
import { resourceVisibleSql } from '@app/gate';
import { containsPattern } from '../common/paging';
import type { ResourceSearchDto } from './resource.dto';

/** SEARCHCOLUMN values clients send (ours and PAM360's spellings), mapped to resource columns. */
const RESOURCE_COLUMNS: Record<string, string> = {
  RESOURCENAME: 'r.name',
  RESOURCEDESCRIPTION: 'r.description',
  RESOURCEDESC: 'r.description',
  RESOURCETYPE: 'r.type',
  RESOURCE_TYPE: 'r.type',
  OPERATINGSYSTEM: 'r.type',
  DNSNAME: 'r.dns_name',
  IPADDRESS: 'r.dns_name',
  DEPARTMENT: 'r.department',
  LOCATION: 'r.location',
  RESOURCEURL: 'r.url',
};
const ACCOUNT_COLUMNS = ['LOGINNAME', 'ACCOUNTNAME'];
export const SEARCH_COLUMN_NAMES = [...Object.keys(RESOURCE_COLUMNS), ...ACCOUNT_COLUMNS, 'ALL'];

export { VIEW_TYPES } from './view-types';
const SSH_TYPES = ['Linux', 'Unix', 'Mac', 'Solaris', 'AIX', 'HP UX'];
const RDP_TYPES = ['Windows', 'WindowsDomain', 'Windows Domain'];

/**
 * The SQL conditions (over resource `r`, and account `a` when `account` is set: the account
 * list) that SEARCHTYPE/SEARCHCOLUMN/SEARCHVALUE, GROUPID and VIEWTYPE ask for, their values appended
 * to `params` (whose first three are visibilityParams). An account column over the resource
 * list matches through the accounts the caller sees, never through hidden ones.
 */
export function searchFilters(search: ResourceSearchDto, params: unknown[], account?: 'a'): string[] {
  const filters: string[] = [];
  const accountMatch = (cond: (alias: string) => string) =>
    account ? cond(account) : `EXISTS (SELECT 1 FROM accounts sa WHERE sa.resource_id = r.id AND ${cond('sa')} AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'sa' })})`;
  if (search.SEARCHVALUE) {
    const byAccount = (search.SEARCHTYPE ?? '').toUpperCase() === 'ACCOUNT';
    const column = (search.SEARCHCOLUMN ?? (byAccount ? 'LOGINNAME' : 'RESOURCENAME')).toUpperCase();
    if (!SEARCH_COLUMN_NAMES.includes(column)) throw AppError.invalid(`SEARCHCOLUMN must be one of: ${SEARCH_COLUMN_NAMES.join(', ')}`);
    const slot = `$${params.push(containsPattern(search.SEARCHVALUE))}`;
    const byName = accountMatch((alias) => `${alias}.name ILIKE ${slot}`);
    if (ACCOUNT_COLUMNS.includes(column)) filters.push(byName);
    else if (column === 'ALL') filters.push(`(${[...new Set(Object.values(RESOURCE_COLUMNS))].map((c) => `${c} ILIKE ${slot}`).join(' OR ')} OR ${byName})`);
    else filters.push(`${RESOURCE_COLUMNS[column]} ILIKE ${slot}`);
  }
  if (search.GROUPID !== undefined) {
    filters.push(`EXISTS (SELECT 1 FROM resource_group_membership gm JOIN resource_groups gg ON gg.id = gm.group_id
      WHERE gm.resource_id = r.id AND gm.group_id = $${params.push(search.GROUPID)} AND gg.org_id = $1)`);
  }
  switch (search.VIEWTYPE) {
    case 'FAVOURITEPASSWORD':
      filters.push(accountMatch((alias) => `${alias}.is_favourite`));
      break;
    case 'LINUXSSHPASSWORD':
      filters.push(`r.type = ANY($${params.push(SSH_TYPES)}::text[])`);
      break;
    case 'WINDOWSRDPPASSWORD':
      filters.push(`r.type = ANY($${params.push(RDP_TYPES)}::text[])`);
      break;
    case 'RECENTLYACCESSEDPASSWORD':
      throw AppError.invalid('VIEWTYPE RECENTLYACCESSEDPASSWORD is not supported; use ALLMYPASSWORD, FAVOURITEPASSWORD, LINUXSSHPASSWORD or WINDOWSRDPPASSWORD');
  }
  return filters;
}
