import { firstRdnValue, roleFor } from './directory-roles';

describe('roles from directory groups', () => {
  it('reads a group name from its DN', () => {
    expect(firstRdnValue('CN=Vault Admins,OU=Groups,DC=lab,DC=test')).toBe('Vault Admins');
    expect(firstRdnValue('CN=Smith\\, John,CN=Users,DC=lab,DC=test')).toBe('Smith, John');
  });

  it('takes the mapped role with the most permissions, else the default', () => {
    const map = { 'vault admins': 'Administrator', auditors: 'Password Auditor' };
    expect(roleFor(['CN=Auditors,DC=x', 'CN=Vault Admins,DC=x'], map, 'Password User')).toBe('Administrator');
    expect(roleFor(['CN=Auditors,DC=x'], map, 'Password User')).toBe('Password Auditor');
    expect(roleFor(['CN=Others,DC=x'], map, 'Password User')).toBe('Password User');
  });
});
