export interface LoginUser {
  userName: string;
  uid: number;
  home: string;
  shell: string;
}

const NO_LOGIN_SHELL = /(^|\/)(nologin|false|true|sync|shutdown|halt)$/;

/** Accounts from /etc/passwd that can log in: a real shell, not nologin/false. root is always listed. */
export function parseLoginUsers(passwd: string): LoginUser[] {
  const users: LoginUser[] = [];
  for (const line of passwd.split('\n')) {
    const fields = line.trim().split(':');
    if (fields.length < 7 || !fields[0] || fields[0].startsWith('#') || fields[0].startsWith('+') || fields[0].startsWith('-')) continue;
    const [userName, , uidText, , , home, shell] = fields;
    const uid = Number(uidText);
    if (!Number.isInteger(uid)) continue;
    // An empty shell field means /bin/sh to login(1) and sshd.
    const loginShell = shell.trim() || '/bin/sh';
    if (!NO_LOGIN_SHELL.test(loginShell) || userName === 'root') users.push({ userName, uid, home, shell: loginShell });
  }
  return users;
}
