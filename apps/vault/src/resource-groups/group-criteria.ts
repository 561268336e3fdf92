import { AppError, parseBoolean } from '@app/http';

export const CRITERION_FIELDS = ['RESOURCENAME', 'LOGINNAME', 'ACCOUNTNAME', 'RESOURCETYPE', 'DNSNAME', 'DEPARTMENT', 'LOCATION', 'RESOURCEDESCRIPTION', 'RESOURCEURL'] as const;
export const CRITERION_OPERATORS = ['CONTAINS', 'NOT CONTAINS', 'EQUALS', 'NOT EQUALS', 'STARTS WITH', 'ENDS WITH'] as const;
export const MAX_CRITERIA = 20;

export interface Criterion {
  field: string;
  operator: string;
  value: string;
}

export interface GroupInput {
  name: string;
  description: string;
  kind: 'static' | 'dynamic';
  matchMode: 'and' | 'or';
  criteria: Criterion[];
  noHelpdeskRetrieval: boolean;
}

/**
 * Op 50's input: critgroup, critdesc, andor, NoOfCriteria and condition_n / operator_n /
 * valuefield_n for n = 1..NoOfCriteria; NoHelpDeskRetrieval as "true"/"false". GROUPTYPE
 * "static" (an extension) makes a group whose members are listed instead of matched.
 * Every problem is refused with a message naming the field.
 */
export function parseGroupInput(read: (name: string) => unknown): GroupInput {
  const name = text(read('critgroup'));
  if (!name) throw AppError.invalid('critgroup (the group name) is required');
  if (name.length > 255) throw AppError.invalid('critgroup must be at most 255 characters');
  const description = text(read('critdesc'));
  if (description.length > 1000) throw AppError.invalid('critdesc must be at most 1000 characters');
  const noHelpdesk = read('NoHelpDeskRetrieval');
  const noHelpdeskRetrieval = noHelpdesk === undefined || noHelpdesk === '' ? false : parseBoolean(text(noHelpdesk));
  if (typeof noHelpdeskRetrieval !== 'boolean') throw AppError.invalid('NoHelpDeskRetrieval must be true or false');
  const kind = text(read('GROUPTYPE')).toLowerCase() || 'dynamic';
  if (kind !== 'static' && kind !== 'dynamic') throw AppError.invalid('GROUPTYPE must be static or dynamic');
  if (kind === 'static') return { name, description, kind, matchMode: 'and', criteria: [], noHelpdeskRetrieval };

  const andor = text(read('andor')).toLowerCase() || 'and';
  if (andor !== 'and' && andor !== 'or') throw AppError.invalid('andor must be and or or');
  const countText = text(read('NoOfCriteria'));
  if (!countText) throw AppError.invalid('NoOfCriteria is required');
  if (!/^\d+$/.test(countText) || Number(countText) < 1 || Number(countText) > MAX_CRITERIA) {
    throw AppError.invalid(`NoOfCriteria must be a whole number from 1 to ${MAX_CRITERIA}`);
  }
  const criteria: Criterion[] = [];
  for (let n = 1; n <= Number(countText); n++) criteria.push(parseCriterion(read, n));
  return { name, description, kind, matchMode: andor, criteria, noHelpdeskRetrieval };
}

function parseCriterion(read: (name: string) => unknown, n: number): Criterion {
  const rawField = text(read(`condition_${n}`));
  if (!rawField) throw AppError.invalid(`condition_${n} is required (NoOfCriteria says there are at least ${n} criteria)`);
  const field = rawField.toUpperCase().replace(/[\s_]+/g, '');
  if (!(CRITERION_FIELDS as readonly string[]).includes(field)) {
    throw AppError.invalid(`condition_${n} must be one of: ${CRITERION_FIELDS.join(', ')}`);
  }
  const rawOperator = text(read(`operator_${n}`));
  if (!rawOperator) throw AppError.invalid(`operator_${n} is required`);
  const operator = rawOperator.toUpperCase().replace(/[\s_]+/g, ' ');
  if (!(CRITERION_OPERATORS as readonly string[]).includes(operator)) {
    throw AppError.invalid(`operator_${n} must be one of: ${CRITERION_OPERATORS.join(', ')}`);
  }
  const value = text(read(`valuefield_${n}`));
  if (!value) throw AppError.invalid(`valuefield_${n} is required`);
  if (value.length > 255) throw AppError.invalid(`valuefield_${n} must be at most 255 characters`);
  return { field: field === 'ACCOUNTNAME' ? 'LOGINNAME' : field, operator, value };
}

function text(value: unknown): string {
  if (Array.isArray(value)) return text(value[0]);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'string' ? value.trim() : '';
}
