/** What a password policy says (its own file: the character classes and the policy rules both read it). */
export type FirstCharRule = 'any' | 'letter' | 'alphanumeric';

export interface PasswordPolicy {
  name: string;
  minLength: number;
  maxLength: number;
  minLower: number;
  minUpper: number;
  minDigits: number;
  minSpecial: number;
  /** The special characters this policy draws from and counts as special. */
  specialChars: string;
  /** Never allowed, never generated. */
  excludedChars: string;
  firstChar: FirstCharRule;
  /** Reuse of the last N passwords is refused (see reuseProblems). */
  noReuseLast: number;
  /** 0 = never expires. */
  maxAgeDays: number;
}
