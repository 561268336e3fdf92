import type { FirstCharRule, PasswordPolicy } from './policy-shape';
import { characterPools, isDigit, isLetter, isLower, isUpper, isValidSpecialChar, DEFAULT_SPECIAL_CHARS } from './password-classes';

export type { FirstCharRule, PasswordPolicy } from './policy-shape';


export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

export const FIRST_CHAR_RULES: readonly FirstCharRule[] = ['any', 'letter', 'alphanumeric'];
export const MAX_PASSWORD_LENGTH = 256;
export const MAX_POLICY_NAME_LENGTH = 100;
export const MAX_REUSE_HISTORY = 100;
export const MAX_AGE_DAYS = 36500;
export const DEFAULT_POLICY_NAME = 'Strong';

export const BUILTIN_POLICIES: readonly PasswordPolicy[] = Object.freeze(
  [
    {
      name: 'Strong',
      minLength: 8, // the original product's Strong; stricter needs a custom policy
      maxLength: 32,
      minLower: 1,
      minUpper: 1,
      minDigits: 1,
      minSpecial: 1,
      specialChars: DEFAULT_SPECIAL_CHARS,
      excludedChars: '',
      firstChar: 'letter' as const,
      noReuseLast: 4,
      maxAgeDays: 90,
    },
    {
      name: 'Medium',
      minLength: 8,
      maxLength: 24,
      minLower: 1,
      minUpper: 1,
      minDigits: 1,
      minSpecial: 0,
      specialChars: DEFAULT_SPECIAL_CHARS,
      excludedChars: '',
      firstChar: 'alphanumeric' as const,
      noReuseLast: 2,
      maxAgeDays: 180,
    },
    {
      name: 'Low',
      minLength: 6,
      maxLength: 64,
      minLower: 0,
      minUpper: 0,
      minDigits: 0,
      minSpecial: 0,
      specialChars: DEFAULT_SPECIAL_CHARS,
      excludedChars: '',
      firstChar: 'any' as const,
      noReuseLast: 0,
      maxAgeDays: 0,
    },
  ].map((policy) => Object.freeze(policy)),
);

export function findBuiltinPolicy(name: string): PasswordPolicy | undefined {
  const wanted = name.trim().toLowerCase();
  return BUILTIN_POLICIES.find((policy) => policy.name.toLowerCase() === wanted);
}

/** How many characters the class minimums and the first-character rule need together. */
function neededCharacters(policy: PasswordPolicy): number {
  const letters = policy.minLower + policy.minUpper;
  if (policy.firstChar === 'letter') return policy.minDigits + policy.minSpecial + Math.max(1, letters);
  if (policy.firstChar === 'alphanumeric') return policy.minSpecial + Math.max(1, letters + policy.minDigits);
  return Math.max(1, letters + policy.minDigits + policy.minSpecial);
}

/** The shortest password this policy allows that can also meet its class and first-character rules. */
export function requiredLength(policy: PasswordPolicy): number {
  return Math.max(policy.minLength, neededCharacters(policy));
}

function isWholeNumber(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** Why this policy is malformed or cannot produce a password; empty when it is usable. */
export function policyProblems(policy: PasswordPolicy): string[] {
  const problems: string[] = [];
  const name = typeof policy.name === 'string' ? policy.name.trim() : '';
  if (name === '') problems.push('Name is required');
  if (name.length > MAX_POLICY_NAME_LENGTH) problems.push(`Name must be at most ${MAX_POLICY_NAME_LENGTH} characters`);

  const counts: [keyof PasswordPolicy, string, number][] = [
    ['minLength', 'Minimum length', 1],
    ['maxLength', 'Maximum length', 1],
    ['minLower', 'Minimum lowercase letters', 0],
    ['minUpper', 'Minimum uppercase letters', 0],
    ['minDigits', 'Minimum digits', 0],
    ['minSpecial', 'Minimum special characters', 0],
  ];
  for (const [field, label, min] of counts) {
    if (!isWholeNumber(policy[field], min, MAX_PASSWORD_LENGTH)) {
      problems.push(`${label} must be a whole number from ${min} to ${MAX_PASSWORD_LENGTH}`);
    }
  }
  if (!isWholeNumber(policy.noReuseLast, 0, MAX_REUSE_HISTORY)) {
    problems.push(`Reuse history must be a whole number from 0 to ${MAX_REUSE_HISTORY}`);
  }
  if (!isWholeNumber(policy.maxAgeDays, 0, MAX_AGE_DAYS)) {
    problems.push(`Maximum age must be a whole number of days from 0 to ${MAX_AGE_DAYS}`);
  }
  if (!FIRST_CHAR_RULES.includes(policy.firstChar)) {
    problems.push('First character rule must be any, letter or alphanumeric');
  }
  if (typeof policy.specialChars !== 'string' || typeof policy.excludedChars !== 'string') {
    problems.push('Special and excluded characters must be text');
  }
  // The checks below combine fields, so they only make sense once each field is sound.
  if (problems.length > 0) return problems;

  const invalidSpecial = [...new Set(Array.from(policy.specialChars))].filter((c) => !isValidSpecialChar(c));
  if (invalidSpecial.length > 0) {
    problems.push(
      `Special characters may only be printable ASCII symbols, not letters, digits, spaces or control characters (found ${JSON.stringify(invalidSpecial.join(''))})`,
    );
  }
  if (policy.minLength > policy.maxLength) {
    problems.push(`Minimum length ${policy.minLength} is greater than maximum length ${policy.maxLength}`);
  }
  const classSum = policy.minLower + policy.minUpper + policy.minDigits + policy.minSpecial;
  if (classSum > policy.maxLength) {
    problems.push(`The minimum character counts add up to ${classSum}, more than the maximum length ${policy.maxLength}`);
  } else if (policy.firstChar !== 'any' && neededCharacters(policy) > policy.maxLength) {
    problems.push(
      `Starting with a ${policy.firstChar === 'letter' ? 'letter' : 'letter or digit'} needs a length of ${neededCharacters(policy)}, more than the maximum length ${policy.maxLength}`,
    );
  }

  const pools = characterPools(policy);
  const required: [number, string[], string][] = [
    [policy.minLower, pools.lower, 'Lowercase letters'],
    [policy.minUpper, pools.upper, 'Uppercase letters'],
    [policy.minDigits, pools.digits, 'Digits'],
    [policy.minSpecial, pools.special, 'Special characters'],
  ];
  for (const [min, pool, label] of required) {
    if (min > 0 && pool.length === 0) problems.push(`${label} are required but none are left after exclusions`);
  }
  if (pools.all.length === 0) problems.push('No characters are left to generate from after exclusions');
  if (policy.firstChar === 'letter' && pools.lower.length + pools.upper.length === 0) {
    problems.push('The first character must be a letter but all letters are excluded');
  }
  if (policy.firstChar === 'alphanumeric' && pools.lower.length + pools.upper.length + pools.digits.length === 0) {
    problems.push('The first character must be a letter or digit but all of them are excluded');
  }
  return problems;
}

/**
 * Why a password does not meet the policy, in the words shown as COMPLIANT REASON;
 * empty when compliant. Characters outside the four classes are allowed unless excluded.
 * Length counts code points, not UTF-16 units.
 */
export function complianceProblems(policy: PasswordPolicy, password: string): string[] {
  const chars = Array.from(password);
  const problems: string[] = [];
  if (chars.length < policy.minLength) problems.push(`Minimum length must be ${policy.minLength}`);
  if (chars.length > policy.maxLength) problems.push(`Maximum length is ${policy.maxLength}`);

  const special = new Set(Array.from(policy.specialChars));
  const classes: [number, (c: string) => boolean, string][] = [
    [policy.minLower, isLower, 'lowercase letter(s)'],
    [policy.minUpper, isUpper, 'uppercase letter(s)'],
    [policy.minDigits, isDigit, 'digit(s)'],
    [policy.minSpecial, (c) => special.has(c), 'special character(s)'],
  ];
  for (const [min, belongs, label] of classes) {
    if (min > 0 && chars.filter(belongs).length < min) problems.push(`Must contain at least ${min} ${label}`);
  }

  const excluded = new Set(Array.from(policy.excludedChars));
  // The message names the policy's whole excluded set, not the offending characters,
  // because the reason is shown to users who may not read the password itself.
  if (chars.some((c) => excluded.has(c))) {
    problems.push(`Must not contain the character(s) ${[...excluded].join('')}`);
  }

  if (chars.length > 0) {
    if (policy.firstChar === 'letter' && !isLetter(chars[0])) problems.push('Must start with a letter');
    if (policy.firstChar === 'alphanumeric' && !isLetter(chars[0]) && !isDigit(chars[0])) {
      problems.push('Must start with a letter or digit');
    }
  }
  return problems;
}

/**
 * Refuses a new password equal to one of the policy's last N. `history` is the account's
 * previous passwords, newest first; the caller decrypts them.
 */
export function reuseProblems(policy: PasswordPolicy, password: string, history: readonly string[]): string[] {
  if (policy.noReuseLast <= 0) return [];
  const recent = history.slice(0, policy.noReuseLast);
  return recent.includes(password) ? [`Must not be one of the last ${policy.noReuseLast} password(s)`] : [];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A password never changed (changedAt null) is not reported as expired: its age is unknown. */
export function isExpired(policy: PasswordPolicy, changedAt: Date | null, now: Date = new Date()): boolean {
  if (policy.maxAgeDays <= 0 || changedAt === null) return false;
  return now.getTime() - changedAt.getTime() >= policy.maxAgeDays * DAY_MS;
}
