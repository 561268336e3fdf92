import { isValidUserName } from './user-name';

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

/** The most login users recorded per host; a host listing more is reported with the rest counted. */
export const MAX_LOGIN_USERS = 1000;


/**
 * What a host said, as the server keeps it (issue 35): only valid user names (no escape
 * sequences, markup or control characters from a hostile /etc/passwd), distinct and sorted,
 * at most MAX_LOGIN_USERS; the others counted.
 */
export function keptLoginUsers(found: LoginUser[]): { users: string[]; invalid: number; beyondLimit: number } {
  const names = found.map((u) => u.userName);
  const valid = [...new Set(names.filter(isValidUserName))].sort();
  return { users: valid.slice(0, MAX_LOGIN_USERS), invalid: names.filter((name) => !isValidUserName(name)).length, beyondLimit: Math.max(0, valid.length - MAX_LOGIN_USERS) };
}
