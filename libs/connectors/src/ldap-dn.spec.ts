import { accountDn, accountsBase, escapeDnValue, passwordModifyRequest, validUserDnTemplate } from './ldap-dn';

describe('LDAP DN building (RFC 4514)', () => {
  it('escapes every special so that a name stays one value of one RDN', () => {
    expect(escapeDnValue('alice')).toBe('alice');
    expect(escapeDnValue('x,ou=admins')).toBe('x\\,ou\\=admins');
    expect(escapeDnValue('a+cn=admin')).toBe('a\\+cn\\=admin');
    expect(escapeDnValue('*)(uid=*')).toBe('*)(uid\\=*');
    expect(escapeDnValue('"q";<>\\')).toBe('\\"q\\"\\;\\<\\>\\\\');
    expect(escapeDnValue(' #lead')).toBe('\\ #lead');
    expect(escapeDnValue('#x')).toBe('\\#x');
    expect(escapeDnValue('trail ')).toBe('trail\\ ');
    expect(escapeDnValue('nl\ncr\r')).toBe('nl\\0acr\\0d');
  });

  it('puts the escaped name in place of {account}, and only there', () => {
    expect(accountDn('uid={account},ou=people,dc=example,dc=org', 'x,ou=admins')).toBe('uid=x\\,ou\\=admins,ou=people,dc=example,dc=org');
    // A replacement pattern in the name is not interpreted.
    expect(accountDn('uid={account},dc=x', '$&$1')).toBe('uid=$&$1,dc=x');
    expect(accountsBase('uid={account},ou=people,dc=example,dc=org')).toBe('ou=people,dc=example,dc=org');
  });

  it('accepts only templates whose first value is {account}', () => {
    expect(validUserDnTemplate('uid={account},ou=people,dc=example,dc=org')).toBe(true);
    expect(validUserDnTemplate('cn={account},dc=x')).toBe(true);
    expect(validUserDnTemplate('ou=people,uid={account}')).toBe(false);
    expect(validUserDnTemplate('uid={account}')).toBe(false);
    expect(validUserDnTemplate('uid={account}{account},dc=x')).toBe(false);
    expect(validUserDnTemplate('uid=x,dc=x')).toBe(false);
  });

  it('encodes the RFC 3062 request as SEQUENCE { [0] userIdentity, [2] newPasswd }', () => {
    expect(passwordModifyRequest('uid=a', 'pw').toString('hex')).toBe('300b' + '8005' + Buffer.from('uid=a').toString('hex') + '8202' + Buffer.from('pw').toString('hex'));
    const long = passwordModifyRequest('uid=a', 'p'.repeat(300));
    expect(long.subarray(0, 4).toString('hex')).toBe('30820137');
  });
});
