import { keptLoginUsers, MAX_LOGIN_USERS, parseLoginUsers } from './passwd';
import { validateUserName } from './user-name';

describe('parseLoginUsers', () => {
  it('keeps accounts with a login shell and always root', () => {
    const passwd = [
      'root:x:0:0:root:/root:/usr/sbin/nologin',
      'daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin',
      'sync:x:4:65534:sync:/bin:/bin/sync',
      'ftp:x:5:5::/srv/ftp:/bin/false',
      'alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash',
      'bob:x:1001:1001::/home/bob:',
      '+nis',
      '# comment',
      '',
    ].join('\n');
    expect(parseLoginUsers(passwd)).toEqual([
      { userName: 'root', uid: 0, home: '/root', shell: '/usr/sbin/nologin' },
      { userName: 'alice', uid: 1000, home: '/home/alice', shell: '/bin/bash' },
      { userName: 'bob', uid: 1001, home: '/home/bob', shell: '/bin/sh' },
    ]);
  });
});

describe('validateUserName', () => {
  it.each(['root', 'Alice', '_svc', 'web-01.ops', 'a'])('accepts %s', (name) => {
    expect(validateUserName(name)).toBe(name);
  });

  it.each(['', '1abc', '-rf', '.hidden', "o'brien", 'a b', 'a;reboot', 'x$(id)', 'ü', 'a'.repeat(65)])('refuses %j', (name) => {
    expect(() => validateUserName(name)).toThrow(expect.objectContaining({ code: 'invalid_user_name' }));
  });
});

describe('keptLoginUsers (issue 35)', () => {
  const user = (userName: string) => ({ userName, uid: 1000, home: '/home/x', shell: '/bin/sh' });

  it('keeps valid names only, distinct and sorted, and counts the rest', () => {
    const found = ['bob', 'alice', 'bob', '\u001b[31mred', '<script>', 'a b', 'svc-01.web', 'Admin', 'x'.repeat(65)].map(user);
    expect(keptLoginUsers(found)).toEqual({ users: ['Admin', 'alice', 'bob', 'svc-01.web'], invalid: 4, beyondLimit: 0 });
  });

  it('records at most MAX_LOGIN_USERS per host', () => {
    const found = Array.from({ length: MAX_LOGIN_USERS + 33 }, (_, i) => user(`u${String(i).padStart(5, '0')}`));
    const kept = keptLoginUsers(found);
    expect(kept.users).toHaveLength(MAX_LOGIN_USERS);
    expect(kept.beyondLimit).toBe(33);
  });
});
