/**
 * An attribute value as one DN component (RFC 4514 section 2.4): the specials escaped, a
 * leading space or '#' and a trailing space escaped, control characters as hex pairs. An
 * account named `*)(uid=*` or `x,ou=admins` stays one value of one RDN.
 */
export function escapeDnValue(value: string): string {
  let out = '';
  for (const [i, ch] of [...value].entries()) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) out += `\\${code.toString(16).padStart(2, '0')}`;
    else if ('"+,;<>\\='.includes(ch)) out += `\\${ch}`;
    else if ((i === 0 && (ch === ' ' || ch === '#')) || (i === [...value].length - 1 && ch === ' ')) out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

/** The placeholder a USERDN template must hold once. */
export const ACCOUNT_PLACEHOLDER = '{account}';

/** Whether a template names an account's entry: `{account}` once, as the value of the first RDN. */
export function validUserDnTemplate(template: string): boolean {
  const at = template.indexOf(ACCOUNT_PLACEHOLDER);
  return at > 0 && template.indexOf(ACCOUNT_PLACEHOLDER, at + 1) < 0 && /^[A-Za-z][\w-]*=$/.test(template.slice(0, at)) && template.slice(at + ACCOUNT_PLACEHOLDER.length).startsWith(',');
}

/** The DN of an account: the template with the escaped name in place of `{account}`. */
export function accountDn(template: string, account: string): string {
  return template.replace(ACCOUNT_PLACEHOLDER, () => escapeDnValue(account));
}

/** The branch that holds the accounts: the template without its first RDN. */
export function accountsBase(template: string): string {
  return template.slice(template.indexOf(ACCOUNT_PLACEHOLDER) + ACCOUNT_PLACEHOLDER.length + 1);
}

/** The BER value of an RFC 3062 PasswdModifyRequest: userIdentity [0] and newPasswd [2]. */
export function passwordModifyRequest(dn: string, newPassword: string): Buffer {
  const body = Buffer.concat([tlv(0x80, Buffer.from(dn, 'utf8')), tlv(0x82, Buffer.from(newPassword, 'utf8'))]);
  return tlv(0x30, body);
}

function tlv(tag: number, value: Buffer): Buffer {
  const n = value.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, value]);
}
