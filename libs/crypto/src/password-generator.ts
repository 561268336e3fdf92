import { characterPools, isDigit, isLetter } from './password-classes';
import { PasswordPolicy, PolicyError, policyProblems, requiredLength } from './password-policy';
import { randomElement, randomIndex, RandomBytes, shuffle } from './password-random';

/**
 * Policies may allow up to 256 characters; generated passwords stop at 32 unless the
 * policy's minimum is longer, since longer ones break older clients' fields for no gain.
 */
export const GENERATED_LENGTH_CAP = 32;

/**
 * A password satisfying the policy: length uniform in
 * [max(minLength, required), max(that, min(maxLength, 32))], the required characters of
 * each class plus uniform fill from all usable characters, shuffled with a CSPRNG.
 */
export function generatePassword(policy: PasswordPolicy, random?: RandomBytes): string {
  const problems = policyProblems(policy);
  if (problems.length > 0) throw new PolicyError(`Password policy ${policy.name} cannot be used: ${problems.join('; ')}`);

  const pools = characterPools(policy);
  const shortest = requiredLength(policy);
  const longest = Math.max(shortest, Math.min(policy.maxLength, GENERATED_LENGTH_CAP));
  const length = shortest + randomIndex(longest - shortest + 1, random);

  const chars: string[] = [];
  const draw = (pool: string[], count: number): void => {
    for (let i = 0; i < count; i++) chars.push(randomElement(pool, random));
  };
  draw(pools.lower, policy.minLower);
  draw(pools.upper, policy.minUpper);
  draw(pools.digits, policy.minDigits);
  draw(pools.special, policy.minSpecial);

  const canStart = startRule(policy);
  if (!chars.some(canStart)) draw(pools.all.filter(canStart), 1);
  draw(pools.all, length - chars.length);
  shuffle(chars, random);

  if (!canStart(chars[0])) {
    const eligible = chars.flatMap((c, i) => (canStart(c) ? [i] : []));
    const swapWith = randomElement(eligible, random);
    [chars[0], chars[swapWith]] = [chars[swapWith], chars[0]];
  }
  return chars.join('');
}

function startRule(policy: PasswordPolicy): (c: string) => boolean {
  if (policy.firstChar === 'letter') return isLetter;
  if (policy.firstChar === 'alphanumeric') return (c) => isLetter(c) || isDigit(c);
  return () => true;
}
