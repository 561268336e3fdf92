/**
 * `User` arrives with special characters escaped by a backslash (`DOMAIN\\user`, `a\ b`).
 * Candidates to look up, most likely first: the unescaped name, then the text as sent
 * (a client that did not escape `DOMAIN\user` must not lose the backslash).
 */
export function userNameCandidates(text: string): string[] {
  const unescaped = text.replace(/\\([\s\S])/g, '$1');
  return unescaped === text ? [text] : [unescaped, text];
}
