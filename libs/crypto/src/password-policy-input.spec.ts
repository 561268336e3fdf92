import { DEFAULT_SPECIAL_CHARS } from './password-classes';
import { PolicyError } from './password-policy';
import { parsePolicyInput } from './password-policy-input';

describe('parsePolicyInput', () => {
  it('reads strings and numbers, with defaults for what is left out', () => {
    expect(parsePolicyInput({ NAME: ' Ops ', MINLENGTH: '10', MAXLENGTH: 20, MINDIGITS: ' 2 ', extra: 'ignored' })).toEqual({
      name: 'Ops',
      minLength: 10,
      maxLength: 20,
      minLower: 0,
      minUpper: 0,
      minDigits: 2,
      minSpecial: 0,
      specialChars: DEFAULT_SPECIAL_CHARS,
      excludedChars: '',
      firstChar: 'any',
      noReuseLast: 0,
      maxAgeDays: 0,
    });
  });

  it('matches field names case-insensitively and preferring an exact match', () => {
    const policy = parsePolicyInput({
      name: 'db',
      MinLength: '8',
      maxlength: '16',
      FirstChar: 'LETTER',
      excludedChars: 0,
      EXCLUDEDCHARS: 'O',
      specialChars: '',
      NoReuseLast: '3',
      maxAgeDays: '30',
    });
    expect(policy).toMatchObject({ name: 'db', minLength: 8, maxLength: 16, firstChar: 'letter', excludedChars: 'O', specialChars: '' });
    expect(policy).toMatchObject({ noReuseLast: 3, maxAgeDays: 30 });
  });

  it('takes a number where characters are expected, as lenient INPUT_DATA produces one', () => {
    expect(parsePolicyInput({ NAME: 'x', MINLENGTH: 8, MAXLENGTH: 8, EXCLUDEDCHARS: 0 }).excludedChars).toBe('0');
  });

  it.each<[Record<string, unknown>, string]>([
    [{ MINLENGTH: 8, MAXLENGTH: 16 }, 'NAME is required'],
    [{ NAME: '', MINLENGTH: 8, MAXLENGTH: 16 }, 'NAME is required'],
    [{ NAME: 'x', MAXLENGTH: 16 }, 'MINLENGTH is required'],
    [{ NAME: 'x', MINLENGTH: 'eight', MAXLENGTH: 16 }, 'MINLENGTH must be a whole number, got "eight"'],
    [{ NAME: 'x', MINLENGTH: 8, MAXLENGTH: 16, MINUPPER: -1 }, 'MINUPPER must be a whole number, got -1'],
    [{ NAME: 'x', MINLENGTH: 8, MAXLENGTH: 16, MINUPPER: '1.5' }, 'MINUPPER must be a whole number, got "1.5"'],
    [{ NAME: 'x', MINLENGTH: 8, MAXLENGTH: 16, FIRSTCHAR: 'digit' }, 'FIRSTCHAR must be any, letter or alphanumeric, got "digit"'],
    [{ NAME: 'x', MINLENGTH: 8, MAXLENGTH: 16, SPECIALCHARS: ['#'] }, 'SPECIALCHARS must be text'],
  ])('refuses %j with "%s"', (input, message) => {
    expect(() => parsePolicyInput(input)).toThrow(new PolicyError(message));
  });

  it('refuses a policy that cannot be met, listing every problem', () => {
    const attempt = () => parsePolicyInput({ NAME: 'x', MINLENGTH: 20, MAXLENGTH: 10, MINDIGITS: 1, EXCLUDEDCHARS: '0123456789' });
    expect(attempt).toThrow(PolicyError);
    expect(attempt).toThrow(
      'Invalid password policy: Minimum length 20 is greater than maximum length 10; Digits are required but none are left after exclusions',
    );
  });
});
