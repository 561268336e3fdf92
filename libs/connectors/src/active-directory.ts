import type { ConnectorFailure } from './connector';
import { ConnectorError } from './connector';

/** The DNS domain of a base DN: its DC components, `DC=lab,DC=example` → `lab.example`. */
export function domainOf(baseDn: string): string {
  const dcs = baseDn
    .split(',')
    .map((rdn) => /^\s*dc\s*=\s*([A-Za-z0-9-]+)\s*$/i.exec(rdn)?.[1])
    .filter((dc): dc is string => !!dc);
  if (dcs.length === 0) throw new ConnectorError('invalid', `The base DN ${baseDn} names no domain (it needs DC=... components)`);
  return dcs.join('.').toLowerCase();
}

/**
 * The name a bind uses. The administrator may be given as `DOMAIN\name`, `name@domain` or a
 * DN, each used as it is. Any other account binds as `name@dns-domain` (AD's implicit UPN of
 * its sAMAccountName), or by its own UPN: never as a DN or another domain's name, which a
 * crafted account name could otherwise point at another entry.
 */
export function bindName(baseDn: string, name: string, administrator: boolean): string {
  const domain = domainOf(baseDn);
  if (!name || /[\0\r\n]/.test(name)) throw new ConnectorError('invalid', `${JSON.stringify(name)} is not an Active Directory account name`);
  if (administrator && (name.includes('=') || name.includes('\\') || name.includes('@'))) return name;
  if (/[\\=,"]/.test(name)) throw new ConnectorError('invalid', `${JSON.stringify(name)} is not an Active Directory account name (a sAMAccountName or user@domain)`);
  if (name.includes('@')) return name;
  return `${name}@${domain}`;
}

/** AD's password value: the password in double quotes, UTF-16LE. */
export function unicodePwd(password: string): Buffer {
  return Buffer.from(`"${password}"`, 'utf16le');
}

// The "data" code of AD's bind refusal (the Win32 error of AcceptSecurityContext).
const BIND_DATA: Record<string, { reason: ConnectorFailure; why: string }> = {
  '52e': { reason: 'auth_failed', why: 'wrong password' },
  '525': { reason: 'auth_failed', why: 'no such user' },
  '530': { reason: 'failed', why: 'the account may not log on at this time of day' },
  '531': { reason: 'failed', why: 'the account may not log on from here' },
  '532': { reason: 'expired', why: 'the password has expired' },
  '533': { reason: 'failed', why: 'the account is disabled in the directory' },
  '701': { reason: 'failed', why: 'the account has expired in the directory' },
  '773': { reason: 'expired', why: 'the password must be changed at the next logon' },
  '775': { reason: 'failed', why: 'the account is locked out in the directory' },
};

/**
 * What an Active Directory refusal means, from its diagnostic message (Windows and Samba
 * both put the Win32 error there): a bind's `data NNN`, or a change's `0000052D` (the
 * domain's password policy: complexity, length, history or minimum age), `0000001F` (no
 * password over this connection). Undefined when the message says nothing AD-specific.
 */
export function adFailure(message: string, code?: number): { reason: ConnectorFailure; why: string } | undefined {
  const data = /\bdata ([0-9a-f]{3,4})\b/i.exec(message)?.[1]?.toLowerCase();
  if (data && BIND_DATA[data]) return BIND_DATA[data];
  if (/\b0000052D\b/i.test(message)) {
    // Samba names the rule; Windows says only that the policy refused it.
    const rule = /check_password_restrictions:\s*([^\n]*?)\s*(?:Code: 0x[0-9a-f]+)?$/i.exec(message)?.[1];
    return { reason: 'policy', why: `the domain's password policy refused the new password${rule ? `: ${rule.replace(/!$/, '')}` : ' (complexity, length, history or minimum age)'}` };
  }
  if (/\b0000001F\b/i.test(message) || code === 53) return { reason: 'tls', why: 'the domain controller will not set a password over this connection (it needs LDAPS or StartTLS)' };
  if (code === 10) return { reason: 'invalid', why: 'the domain controller referred the request elsewhere: the base DN is not in its domain' };
  return undefined;
}
