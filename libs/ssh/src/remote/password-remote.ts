import { RemoteHostError, SshKeyError } from '../errors';
import { validateUserName } from '../user-name';
import { planRunAs, runAs, whoAmI } from './run-as';
import { withSshSession } from './session';
import type { SshTarget } from './target';

const CHPASSWD_SCRIPT = `
PATH="$PATH:/usr/sbin:/sbin"; export PATH
command -v chpasswd >/dev/null 2>&1 || exit 21
exec chpasswd
`;

function validateNewPassword(password: string): void {
  if (typeof password !== 'string' || !password || password.length > 512 || /[\r\n\0]/.test(password)) {
    throw new SshKeyError('invalid_password', 'The new password must be 1 to 512 characters without line breaks');
  }
}

/**
 * Sets a user's password with chpasswd, as root directly or through sudo. The password
 * travels only on stdin; remote error output is not repeated because it could echo input.
 */
export async function changeRemotePassword(target: SshTarget, userName: string, newPassword: string): Promise<void> {
  validateUserName(userName);
  validateNewPassword(newPassword);
  return withSshSession(target, async (session) => {
    const identity = await whoAmI(session, userName);
    if (!identity.subjectExists) throw new RemoteHostError('not_found', `User ${userName} does not exist on ${session.where}`);
    const plan = planRunAs(identity, 'root', target.password);
    const result = await runAs(session, plan, identity.userName, CHPASSWD_SCRIPT, Buffer.from(`${userName}:${newPassword}\n`, 'utf8'));
    if (result.exitCode === 21) throw new RemoteHostError('command_failed', `chpasswd is not available on ${session.where}`);
    if (result.exitCode !== 0) {
      throw new RemoteHostError('command_failed', `Changing the password of ${userName} on ${session.where} failed (exit code ${result.exitCode ?? 'none'})`);
    }
  });
}
