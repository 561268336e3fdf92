import type { PasswordPolicy } from './policy-shape';

export const LOWERCASE = 'abcdefghijklmnopqrstuvwxyz';
export const UPPERCASE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const DIGITS = '0123456789';
// Quotes, backslash, backtick and space are left out: generated passwords get pasted
// into shell scripts, INI/YAML files and connection strings, where they break quoting.
export const DEFAULT_SPECIAL_CHARS = '!@#$%^&*()-_=+[]{}:;,.?~';

export interface CharacterPools {
  lower: string[];
  upper: string[];
  digits: string[];
  special: string[];
  all: string[];
}

// Distinct characters per class after exclusions; duplicates in specialChars would
// otherwise make some characters more likely than others.
export function characterPools(policy: PasswordPolicy): CharacterPools {
  const excluded = new Set(Array.from(policy.excludedChars));
  const usable = (chars: string): string[] =>
    [...new Set(Array.from(chars))].filter((c) => !excluded.has(c));
  const lower = usable(LOWERCASE);
  const upper = usable(UPPERCASE);
  const digits = usable(DIGITS);
  const special = usable(policy.specialChars).filter((c) => !isLetter(c) && !isDigit(c));
  return { lower, upper, digits, special, all: [...lower, ...upper, ...digits, ...special] };
}

export function isLower(c: string): boolean {
  return c >= 'a' && c <= 'z' && c.length === 1;
}

export function isUpper(c: string): boolean {
  return c >= 'A' && c <= 'Z' && c.length === 1;
}

export function isLetter(c: string): boolean {
  return isLower(c) || isUpper(c);
}

export function isDigit(c: string): boolean {
  return c >= '0' && c <= '9' && c.length === 1;
}

// Printable ASCII that is neither a letter, a digit nor a space.
export function isValidSpecialChar(c: string): boolean {
  const code = c.codePointAt(0) ?? 0;
  return c.length === 1 && code > 0x20 && code < 0x7f && !isLetter(c) && !isDigit(c);
}
