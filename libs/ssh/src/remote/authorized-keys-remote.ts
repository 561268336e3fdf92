import { appendAuthorizedKey, dropAuthorizedKey, parseAuthorizedKeys, type AuthorizedKeyEntry } from '../authorized-keys';
import { RemoteHostError } from '../errors';
import { parsePublicKeyLine } from '../public-key-line';
import { validateUserName } from '../user-name';
import { planRunAs, runAs, whoAmI, type RunAsPlan } from './run-as';
import { withSshSession, type SshSession } from './session';
import type { SshTarget } from './target';

// Both scripts run as the key owner, so umask 077 gives ~/.ssh 0700 and the file 0600, owned by them.
const READ_SCRIPT = `
[ -n "$HOME" ] && [ -d "$HOME" ] || exit 12
f="$HOME/.ssh/authorized_keys"
if [ -f "$f" ]; then exec cat -- "$f"; fi
[ -e "$f" ] && exit 11
exit 0
`;

const WRITE_SCRIPT = `
umask 077
[ -n "$HOME" ] && [ -d "$HOME" ] || exit 12
d="$HOME/.ssh"
[ -d "$d" ] || mkdir -m 700 -- "$d" || exit 13
t="$d/.authorized_keys.$$.tmp"
if cat > "$t" && chmod 600 -- "$t" && mv -f -- "$t" "$d/authorized_keys"; then
  command -v restorecon >/dev/null 2>&1 && restorecon -F -- "$d" "$d/authorized_keys" >/dev/null 2>&1
  exit 0
fi
rm -f -- "$t"
exit 14
`;

export interface AuthorizedKeysResult {
  /** Lines added or removed; 0 when the file already was as asked. */
  changed: number;
}

interface KeyFileContext {
  session: SshSession;
  plan: RunAsPlan;
  actor: string;
  userName: string;
}

async function openKeyFile(session: SshSession, target: SshTarget, userName: string): Promise<KeyFileContext> {
  const identity = await whoAmI(session, userName);
  if (!identity.subjectExists) throw new RemoteHostError('not_found', `User ${userName} does not exist on ${session.where}`);
  return { session, plan: planRunAs(identity, userName, target.password), actor: identity.userName, userName };
}

function scriptFailure(context: KeyFileContext, exitCode: number | null, stderr: Buffer, action: string): RemoteHostError {
  const file = `~${context.userName}/.ssh/authorized_keys`;
  const where = context.session.where;
  if (exitCode === 12) return new RemoteHostError('not_found', `The home directory of ${context.userName} on ${where} does not exist`);
  if (exitCode === 11) return new RemoteHostError('command_failed', `${file} on ${where} is not a regular file`);
  if (exitCode === 13 || exitCode === 14 || /permission denied/i.test(stderr.toString('utf8'))) {
    return new RemoteHostError('permission_denied', `Cannot ${action} ${file} on ${where}: permission denied`);
  }
  const detail = firstLine(stderr);
  return new RemoteHostError('command_failed', `Cannot ${action} ${file} on ${where}${detail ? `: ${detail}` : ''}`);
}

function firstLine(stderr: Buffer): string {
  return stderr.toString('utf8').split('\n')[0].trim().slice(0, 200);
}

async function readKeyFile(context: KeyFileContext): Promise<Buffer> {
  const result = await runAs(context.session, context.plan, context.actor, READ_SCRIPT);
  if (result.exitCode !== 0) throw scriptFailure(context, result.exitCode, result.stderr, 'read');
  return result.stdout;
}

async function writeKeyFile(context: KeyFileContext, content: Buffer): Promise<void> {
  const result = await runAs(context.session, context.plan, context.actor, WRITE_SCRIPT, content);
  if (result.exitCode !== 0) throw scriptFailure(context, result.exitCode, result.stderr, 'write');
}

async function editKeyFile(target: SshTarget, userName: string, edit: (content: Buffer) => { content: Buffer; changed: number }): Promise<AuthorizedKeysResult> {
  validateUserName(userName);
  return withSshSession(target, async (session) => {
    const context = await openKeyFile(session, target, userName);
    const before = await readKeyFile(context);
    const { content, changed } = edit(before);
    if (changed) await writeKeyFile(context, content);
    return { changed };
  });
}

/**
 * Appends the key to the user's ~/.ssh/authorized_keys unless the same key (type and blob)
 * is already there. Logged in as that user, as root, or as a sudoer.
 */
export async function addAuthorizedKey(target: SshTarget, userName: string, publicLine: string): Promise<AuthorizedKeysResult> {
  parsePublicKeyLine(publicLine);
  return editKeyFile(target, userName, (content) => appendAuthorizedKey(content, publicLine));
}

/** Removes every line holding the same key; the other lines stay byte for byte. */
export async function removeAuthorizedKey(target: SshTarget, userName: string, publicLine: string): Promise<AuthorizedKeysResult> {
  parsePublicKeyLine(publicLine);
  return editKeyFile(target, userName, (content) => dropAuthorizedKey(content, publicLine));
}

export async function listAuthorizedKeys(target: SshTarget, userName: string): Promise<AuthorizedKeyEntry[]> {
  validateUserName(userName);
  return withSshSession(target, async (session) => parseAuthorizedKeys(await readKeyFile(await openKeyFile(session, target, userName))));
}
