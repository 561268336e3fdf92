/**
 * `User` arrives with special characters escaped by a backslash (`DOMAIN\\user`, `a\ b`).
 * Candidates to look up, most likely first: the unescaped name, then the text as sent
 * (a client that did not escape `DOMAIN\user` must not lose the backslash).
 */
export function userNameCandidates(text: string): string[] {
  const unescaped = text.replace(/\\([\s\S])/g, '$1');
  return unescaped === text ? [text] : [unescaped, text];
}

/**
 * A full OpenPGP user id, `name (comment) <mail>` or `name <mail>` (KMP's getPGPKey sample
 * sends one): the key pair's name, which is the user name, and its mail. Undefined for a
 * plain user name.
 */
export function parseOpenPgpUserId(text: string): { name: string; email: string } | undefined {
  const match = /^\s*([^<>()]*?)\s*(?:\([^()]*\))?\s*<([^<>\s]+)>\s*$/.exec(text);
  if (!match || match[1] === '') return undefined;
  return { name: match[1], email: match[2] };
}
