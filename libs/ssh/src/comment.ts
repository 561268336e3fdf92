import { SshKeyError } from './errors';

/** Comments end up in one-line files (authorized_keys), so line breaks and control characters are refused. */
export function validateComment(comment: string | undefined | null): string {
  const text = (comment ?? '').trim();
  if (text.length > 1024 || /[\x00-\x1f\x7f]/.test(text)) {
    throw new SshKeyError('invalid_comment', 'The key comment must be one line of printable text (at most 1024 characters)');
  }
  return text;
}
