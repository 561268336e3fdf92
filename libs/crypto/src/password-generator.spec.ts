import { createHash } from 'node:crypto';
import { DEFAULT_SPECIAL_CHARS, LOWERCASE } from './password-classes';
import { GENERATED_LENGTH_CAP, generatePassword } from './password-generator';
import { BUILTIN_POLICIES, complianceProblems, FirstCharRule, PasswordPolicy, PolicyError, policyProblems } from './password-policy';

// Deterministic stand-ins so a failure reproduces; the generator itself uses the CSPRNG.
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seededBytes(seed: string): (n: number) => Buffer {
  let counter = 0;
  return (n) => createHash('sha256').update(`${seed}:${counter++}`).digest().subarray(0, n);
}

const ALL_ASCII = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('');

function randomPolicy(rng: () => number, index: number): PasswordPolicy {
  const int = (max: number) => Math.floor(rng() * (max + 1));
  const pick = (chars: string, count: number) => Array.from({ length: count }, () => chars[int(chars.length - 1)]).join('');
  const minLength = 1 + int(40);
  const maxLength = Math.min(256, rng() < 0.1 ? 200 + int(56) : minLength + int(40));
  const wholeClass = ['', LOWERCASE, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', '0123456789', DEFAULT_SPECIAL_CHARS][int(4)];
  return {
    name: `random-${index}`,
    minLength,
    maxLength,
    minLower: rng() < 0.5 ? int(4) : 0,
    minUpper: rng() < 0.5 ? int(4) : 0,
    minDigits: rng() < 0.5 ? int(4) : 0,
    minSpecial: rng() < 0.5 ? int(4) : 0,
    specialChars: rng() < 0.1 ? '' : pick(DEFAULT_SPECIAL_CHARS, 1 + int(10)),
    excludedChars: pick(ALL_ASCII, int(15)) + (rng() < 0.15 ? wholeClass : ''),
    firstChar: (['any', 'letter', 'alphanumeric'] as FirstCharRule[])[int(2)],
    noReuseLast: int(5),
    maxAgeDays: int(365),
  };
}

function chiSquare(counts: number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / counts.length;
  return counts.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0);
}

describe('generatePassword', () => {
  it.each(BUILTIN_POLICIES.map((p) => [p.name, p] as const))('always satisfies %s over 3000 draws', (_name, policy) => {
    const lengths = new Set<number>();
    for (let i = 0; i < 3000; i++) {
      const password = generatePassword(policy);
      expect(complianceProblems(policy, password)).toEqual([]);
      lengths.add(password.length);
    }
    const longest = Math.min(policy.maxLength, GENERATED_LENGTH_CAP);
    expect(Math.min(...lengths)).toBe(policy.minLength);
    expect(Math.max(...lengths)).toBe(longest);
    expect(lengths.size).toBe(longest - policy.minLength + 1);
  });

  it('always satisfies random valid policies and refuses the impossible ones', () => {
    const rng = seededRandom(20240601);
    let usable = 0;
    let refused = 0;
    for (let i = 0; i < 800; i++) {
      const policy = randomPolicy(rng, i);
      if (policyProblems(policy).length > 0) {
        expect(() => generatePassword(policy)).toThrow(PolicyError);
        refused++;
        continue;
      }
      usable++;
      for (let draw = 0; draw < 15; draw++) {
        const password = generatePassword(policy);
        const problems = complianceProblems(policy, password);
        if (problems.length > 0) throw new Error(`${JSON.stringify(policy)} gave ${password}: ${problems.join('; ')}`);
      }
    }
    // Both branches must be exercised for the test to mean anything.
    expect(usable).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(50);
  });

  it('draws each lowercase letter about equally often', () => {
    const strong = BUILTIN_POLICIES[0];
    const counts = new Array<number>(26).fill(0);
    for (let i = 0; i < 3000; i++) {
      for (const c of generatePassword(strong)) {
        const index = LOWERCASE.indexOf(c);
        if (index >= 0) counts[index]++;
      }
    }
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(10000);
    // 25 degrees of freedom: the mean is 25 and 90 is beyond p = 1e-8, so this only fails on real bias.
    expect(chiSquare(counts)).toBeLessThan(90);
  });

  it('puts a required character at every position about equally often', () => {
    const policy: PasswordPolicy = {
      ...BUILTIN_POLICIES[2],
      minLength: 12,
      maxLength: 12,
      minSpecial: 1,
      specialChars: '#',
    };
    const counts = new Array<number>(12).fill(0);
    for (let i = 0; i < 5000; i++) {
      const password = generatePassword(policy);
      for (let position = 0; position < 12; position++) if (password[position] === '#') counts[position]++;
    }
    // 11 degrees of freedom; 60 is beyond p = 1e-8.
    expect(chiSquare(counts)).toBeLessThan(60);
  });

  it('never uses excluded characters and honours the first-character rule', () => {
    const policy: PasswordPolicy = {
      ...BUILTIN_POLICIES[0],
      minLower: 0,
      minUpper: 0,
      minDigits: 3,
      minSpecial: 3,
      minLength: 7,
      maxLength: 7,
      excludedChars: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.replace('Q', '').replace('7', ''),
    };
    for (let i = 0; i < 500; i++) {
      const password = generatePassword(policy);
      expect(password[0]).toBe('Q');
      expect(password).toMatch(/^Q[Q7!@#$%^&*()\-_=+[\]{}:;,.?~]{6}$/);
      expect(complianceProblems(policy, password)).toEqual([]);
    }
  });

  it('uses a minimum length beyond the cap as the length', () => {
    const policy: PasswordPolicy = { ...BUILTIN_POLICIES[0], minLength: 100, maxLength: 256 };
    expect(generatePassword(policy)).toHaveLength(100);
  });

  it('is reproducible with an injected random source', () => {
    const policy = BUILTIN_POLICIES[0];
    expect(generatePassword(policy, seededBytes('a'))).toBe(generatePassword(policy, seededBytes('a')));
    expect(generatePassword(policy, seededBytes('a'))).not.toBe(generatePassword(policy, seededBytes('b')));
  });

  it('throws PolicyError naming the policy and its problems', () => {
    const policy: PasswordPolicy = { ...BUILTIN_POLICIES[0], name: 'Broken', minLength: 40, maxLength: 20 };
    expect(() => generatePassword(policy)).toThrow(
      new PolicyError('Password policy Broken cannot be used: Minimum length 40 is greater than maximum length 20'),
    );
  });
});
