import { adFailure, bindName, domainOf, unicodePwd } from './active-directory';

describe('Active Directory names and answers', () => {
  it('takes the DNS domain from the base DN', () => {
    expect(domainOf('CN=Users,DC=Lab,DC=Example')).toBe('lab.example');
    expect(() => domainOf('ou=people,o=example')).toThrow('names no domain');
  });

  it('binds the administrator as given, any other account only as its UPN', () => {
    const base = 'DC=lab,DC=test';
    expect(bindName(base, 'LAB\\admin', true)).toBe('LAB\\admin');
    expect(bindName(base, 'CN=svc,CN=Users,DC=lab,DC=test', true)).toBe('CN=svc,CN=Users,DC=lab,DC=test');
    expect(bindName(base, 'alice', false)).toBe('alice@lab.test');
    expect(bindName(base, 'alice@lab.test', false)).toBe('alice@lab.test');
    for (const hostile of ['LAB\\Administrator', 'CN=Administrator,CN=Users,DC=lab,DC=test', 'a"b', '']) {
      expect(() => bindName(base, hostile, false)).toThrow('is not an Active Directory account name');
    }
  });

  it('writes unicodePwd as the quoted password in UTF-16LE', () => {
    expect(unicodePwd('Pä1')).toEqual(Buffer.from([0x22, 0, 0x50, 0, 0xe4, 0, 0x31, 0, 0x22, 0]));
  });

  it.each([
    ['80090308: LdapErr: DSID-0C0903A9, comment: AcceptSecurityContext error, data 52e, v1db1', undefined, 'auth_failed', 'wrong password'],
    ['80090308: LdapErr: DSID-0C0903A9, comment: AcceptSecurityContext error, data 533, v1db1', undefined, 'failed', 'the account is disabled in the directory'],
    ['80090308: LdapErr: DSID-0C09042A, comment: AcceptSecurityContext error, data 775, v2580', undefined, 'failed', 'the account is locked out in the directory'],
    ['80090308: LdapErr: DSID-0C09042A, comment: AcceptSecurityContext error, data 532, v2580', undefined, 'expired', 'the password has expired'],
    [
      '0000052D: Constraint violation - check_password_restrictions: the password does not meet the complexity criteria! Code: 0x13',
      19,
      'policy',
      "the domain's password policy refused the new password: the password does not meet the complexity criteria",
    ],
    ['0000052D: SvcErr: DSID-031A12D2, problem 5003 (WILL_NOT_PERFORM), data 0', 53, 'policy', "the domain's password policy refused the new password (complexity, length, history or minimum age)"],
    ['0000001F: SvcErr: DSID-031A12D2, problem 5003 (WILL_NOT_PERFORM), data 0', 53, 'tls', 'the domain controller will not set a password over this connection (it needs LDAPS or StartTLS)'],
    ['0000202B: RefErr: DSID-0310082F, data 0, 1 access points', 10, 'invalid', 'the domain controller referred the request elsewhere: the base DN is not in its domain'],
  ])('maps %s', (message, code, reason, why) => {
    expect(adFailure(message, code)).toEqual({ reason, why });
  });

  it('says nothing of an answer that is not AD-specific', () => {
    expect(adFailure('no such object', 32)).toBeUndefined();
  });
});
