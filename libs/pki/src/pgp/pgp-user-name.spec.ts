import { parseOpenPgpUserId, userNameCandidates } from './pgp-user-name';

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

describe('parseOpenPgpUserId', () => {
  it.each([
    ['pgp owner (work key) <owner@example.test>', { name: 'pgp owner', email: 'owner@example.test' }],
    ['alice <alice@example.test>', { name: 'alice', email: 'alice@example.test' }],
    ['  bob(comment)<bob@example.test> ', { name: 'bob', email: 'bob@example.test' }],
  ])('%s → %j', (text, expected) => {
    expect(parseOpenPgpUserId(text)).toEqual(expected);
  });

  it.each(['alice', '<alice@example.test>', 'alice <>', 'a <b> <c>', 'alice (x) (y) <a@b>'])('%s is not a user id', (text) => {
    expect(parseOpenPgpUserId(text)).toBeUndefined();
  });
});
