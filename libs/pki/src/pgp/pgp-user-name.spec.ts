import { userNameCandidates } from './pgp-user-name';

describe('userNameCandidates', () => {
  it.each([
    ['DOMAIN\\\\user', ['DOMAIN\\user', 'DOMAIN\\\\user']],
    ['a\\ b', ['a b', 'a\\ b']],
    ['first\\.last\\@corp', ['first.last@corp', 'first\\.last\\@corp']],
    ['plain', ['plain']],
    ['trailing\\', ['trailing\\']],
  ])('%s → %j', (text, expected) => {
    expect(userNameCandidates(text)).toEqual(expected);
  });
});
