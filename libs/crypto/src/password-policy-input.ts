import { DEFAULT_SPECIAL_CHARS } from './password-classes';
import { FIRST_CHAR_RULES, FirstCharRule, PasswordPolicy, PolicyError, policyProblems } from './password-policy';

/**
 * Builds a policy from an administrator's INPUT_DATA Details. Field names match exactly,
 * then case-insensitively; numbers may arrive as numbers or digit strings. NAME, MINLENGTH
 * and MAXLENGTH are required; the rest default to no requirement (special characters to
 * the default set). Unknown fields are ignored.
 */
export function parsePolicyInput(obj: Record<string, unknown>): PasswordPolicy {
  const policy: PasswordPolicy = {
    name: requiredName(obj),
    minLength: count(obj, 'MINLENGTH', undefined),
    maxLength: count(obj, 'MAXLENGTH', undefined),
    minLower: count(obj, 'MINLOWER', 0),
    minUpper: count(obj, 'MINUPPER', 0),
    minDigits: count(obj, 'MINDIGITS', 0),
    minSpecial: count(obj, 'MINSPECIAL', 0),
    specialChars: text(obj, 'SPECIALCHARS', DEFAULT_SPECIAL_CHARS),
    excludedChars: text(obj, 'EXCLUDEDCHARS', ''),
    firstChar: firstCharRule(obj),
    noReuseLast: count(obj, 'NOREUSELAST', 0),
    maxAgeDays: count(obj, 'MAXAGEDAYS', 0),
  };
  const problems = policyProblems(policy);
  if (problems.length > 0) throw new PolicyError(`Invalid password policy: ${problems.join('; ')}`);
  return policy;
}

function field(obj: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(obj, name)) return obj[name];
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : obj[key];
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function requiredName(obj: Record<string, unknown>): string {
  const name = text(obj, 'NAME', '').trim();
  if (name === '') throw new PolicyError('NAME is required');
  return name;
}

// An explicit empty string is kept: SPECIALCHARS "" means a policy without special characters.
function text(obj: Record<string, unknown>, name: string, fallback: string): string {
  const value = field(obj, name);
  if (value === undefined || value === null) return fallback;
  // Lenient INPUT_DATA turns a bare 0 into a number, so numbers are accepted as text.
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new PolicyError(`${name} must be text`);
}

function count(obj: Record<string, unknown>, name: string, fallback: number | undefined): number {
  const value = field(obj, name);
  if (!present(value)) {
    if (fallback === undefined) throw new PolicyError(`${name} is required`);
    return fallback;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\s*\d{1,9}\s*$/.test(value)) return Number(value.trim());
  throw new PolicyError(`${name} must be a whole number, got ${JSON.stringify(value)}`);
}

function firstCharRule(obj: Record<string, unknown>): FirstCharRule {
  const value = field(obj, 'FIRSTCHAR');
  if (!present(value)) return 'any';
  const rule = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  const match = FIRST_CHAR_RULES.find((r) => r === rule);
  if (match === undefined) throw new PolicyError(`FIRSTCHAR must be any, letter or alphanumeric, got ${JSON.stringify(value)}`);
  return match;
}
