import {
  BUILTIN_POLICIES,
  complianceProblems,
  DEFAULT_POLICY_NAME,
  findBuiltinPolicy,
  isExpired,
  PasswordPolicy,
  policyProblems,
  reuseProblems,
} from './password-policy';

function policy(overrides: Partial<PasswordPolicy> = {}): PasswordPolicy {
  return { ...(findBuiltinPolicy('Strong') as PasswordPolicy), name: 'Test', ...overrides };
}

describe('builtin policies', () => {
  it('has Strong, Medium and Low, all usable, Strong the default', () => {
    expect(BUILTIN_POLICIES.map((p) => p.name)).toEqual(['Strong', 'Medium', 'Low']);
    for (const p of BUILTIN_POLICIES) expect(policyProblems(p)).toEqual([]);
    expect(findBuiltinPolicy(DEFAULT_POLICY_NAME)?.name).toBe('Strong');
  });

  it('finds by name ignoring case and surrounding spaces', () => {
    expect(findBuiltinPolicy('medium')?.name).toBe('Medium');
    expect(findBuiltinPolicy(' LOW ')?.name).toBe('Low');
    expect(findBuiltinPolicy('Weak')).toBeUndefined();
  });

  it('cannot be changed by a caller', () => {
    const strong = findBuiltinPolicy('Strong') as PasswordPolicy;
    expect(() => {
      strong.minLength = 1;
    }).toThrow(TypeError);
  });
});

describe('policyProblems', () => {
  it.each<[string, Partial<PasswordPolicy>, RegExp]>([
    ['min above max', { minLength: 20, maxLength: 10 }, /Minimum length 20 is greater than maximum length 10/],
    ['class sums above max', { minLength: 4, maxLength: 8, minLower: 3, minUpper: 3, minDigits: 3 }, /add up to 10, more than the maximum length 8/],
    ['lengths out of range', { minLength: 0 }, /Minimum length must be a whole number from 1 to 256/],
    ['max length too big', { maxLength: 257 }, /Maximum length must be a whole number from 1 to 256/],
    ['fractional count', { minDigits: 1.5 }, /Minimum digits must be a whole number/],
    ['negative count', { minSpecial: -1 }, /Minimum special characters must be a whole number/],
    ['lowercase fully excluded', { excludedChars: 'abcdefghijklmnopqrstuvwxyz' }, /Lowercase letters are required but none are left/],
    ['digits fully excluded', { excludedChars: '0123456789' }, /Digits are required but none are left/],
    ['special required, none defined', { specialChars: '' }, /Special characters are required but none are left/],
    ['special all excluded', { specialChars: '#!', excludedChars: '!#' }, /Special characters are required/],
    ['letter in special chars', { specialChars: '#a' }, /Special characters may only be printable ASCII symbols.*"a"/],
    ['space in special chars', { specialChars: '# ' }, /Special characters may only be printable ASCII/],
    ['unknown first char rule', { firstChar: 'digit' as PasswordPolicy['firstChar'] }, /First character rule must be/],
    ['empty name', { name: '  ' }, /Name is required/],
    ['reuse history out of range', { noReuseLast: 101 }, /Reuse history must be a whole number from 0 to 100/],
    ['negative age', { maxAgeDays: -1 }, /Maximum age must be a whole number of days/],
  ])('reports %s', (_label, overrides, expected) => {
    const problems = policyProblems(policy(overrides));
    expect(problems.join('\n')).toMatch(expected);
  });

  it('reports a first-letter rule with every letter excluded', () => {
    const problems = policyProblems(
      policy({ minLower: 0, minUpper: 0, excludedChars: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ' }),
    );
    expect(problems).toContain('The first character must be a letter but all letters are excluded');
  });

  it('reports a first-letter rule that needs one more character than the maximum allows', () => {
    const p = policy({ minLength: 4, maxLength: 4, minLower: 0, minUpper: 0, minDigits: 2, minSpecial: 2 });
    expect(policyProblems(p)).toEqual(['Starting with a letter needs a length of 5, more than the maximum length 4']);
    expect(policyProblems({ ...p, firstChar: 'any' })).toEqual([]);
  });

  it('reports an alphanumeric first char with letters and digits all excluded', () => {
    const p = policy({
      firstChar: 'alphanumeric',
      minLower: 0,
      minUpper: 0,
      minDigits: 0,
      excludedChars: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
    });
    expect(policyProblems(p)).toEqual(['The first character must be a letter or digit but all of them are excluded']);
  });

  it('accepts the tightest feasible policy', () => {
    expect(policyProblems(policy({ minLength: 4, maxLength: 4, minLower: 1, minUpper: 1, minDigits: 1, minSpecial: 1 }))).toEqual([]);
  });
});

describe('complianceProblems', () => {
  const strong = findBuiltinPolicy('Strong') as PasswordPolicy;

  it('accepts a compliant password', () => {
    expect(complianceProblems(strong, 'Abcdefgh1#xy')).toEqual([]);
  });

  it('uses the wording clients display as COMPLIANT REASON', () => {
    const p = policy({ minLength: 8 });
    expect(complianceProblems(p, 'Ab1#')).toEqual(['Minimum length must be 8']);
    expect(complianceProblems(strong, 'A1#' + 'b'.repeat(40))).toEqual(['Maximum length is 32']);
  });

  it('names each missing class with its count', () => {
    const p = policy({ minLength: 1, minLower: 2, minUpper: 1, minDigits: 3, minSpecial: 1, firstChar: 'any' });
    expect(complianceProblems(p, '1234567')).toEqual([
      'Must contain at least 2 lowercase letter(s)',
      'Must contain at least 1 uppercase letter(s)',
      'Must contain at least 1 special character(s)',
    ]);
  });

  it('counts only the policy special characters as special, and allows other symbols', () => {
    const p = policy({ specialChars: '#', minSpecial: 1 });
    expect(complianceProblems(p, 'Abcdefghij1!')).toEqual(['Must contain at least 1 special character(s)']);
    expect(complianceProblems(p, 'Abcdefghij1#!')).toEqual([]);
  });

  it('names the excluded set, not which excluded characters the password holds', () => {
    const p = policy({ excludedChars: 'lIO0' });
    expect(complianceProblems(p, 'Abcdefghij1#O')).toEqual(['Must not contain the character(s) lIO0']);
  });

  it('checks the first character rule', () => {
    expect(complianceProblems(strong, '1Abcdefghij#')).toEqual(['Must start with a letter']);
    const medium = findBuiltinPolicy('Medium') as PasswordPolicy;
    expect(complianceProblems(medium, '#Abcdefgh1')).toEqual(['Must start with a letter or digit']);
    expect(complianceProblems(medium, '1Abcdefgh')).toEqual([]);
  });

  it('counts code points, not UTF-16 units', () => {
    const p = policy({ minLength: 3, maxLength: 3, minLower: 0, minUpper: 0, minDigits: 0, minSpecial: 0, firstChar: 'any' });
    expect(complianceProblems(p, '😀😀😀')).toEqual([]);
  });

  it('reports an empty password once, for its length', () => {
    expect(complianceProblems(findBuiltinPolicy('Low') as PasswordPolicy, '')).toEqual(['Minimum length must be 6']);
  });
});

describe('reuseProblems', () => {
  it('refuses one of the last N passwords only', () => {
    const p = policy({ noReuseLast: 2 });
    expect(reuseProblems(p, 'b', ['a', 'b', 'c'])).toEqual(['Must not be one of the last 2 password(s)']);
    expect(reuseProblems(p, 'c', ['a', 'b', 'c'])).toEqual([]);
    expect(reuseProblems(policy({ noReuseLast: 0 }), 'a', ['a'])).toEqual([]);
  });
});

describe('isExpired', () => {
  const day = 24 * 60 * 60 * 1000;
  const changed = new Date('2024-01-01T00:00:00Z');

  it('expires once maxAgeDays have passed', () => {
    const p = policy({ maxAgeDays: 90 });
    expect(isExpired(p, changed, new Date(changed.getTime() + 90 * day - 1))).toBe(false);
    expect(isExpired(p, changed, new Date(changed.getTime() + 90 * day))).toBe(true);
  });

  it('never expires with maxAgeDays 0 or an unknown change time', () => {
    expect(isExpired(policy({ maxAgeDays: 0 }), changed, new Date('2100-01-01'))).toBe(false);
    expect(isExpired(policy({ maxAgeDays: 1 }), null, new Date('2100-01-01'))).toBe(false);
  });
});
