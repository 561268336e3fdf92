import { RemoteHostError } from '../errors';
import { parseLoginUsers, type LoginUser } from '../passwd';
import { withSshSession } from './session';
import type { SshTarget } from './target';

/** Accounts in the host's /etc/passwd that have a login shell (root always included). */
export async function enumerateLoginUsers(target: SshTarget): Promise<LoginUser[]> {
  return withSshSession(target, async (session) => {
    const result = await session.exec('cat /etc/passwd');
    if (result.exitCode !== 0) throw new RemoteHostError('command_failed', `Cannot read /etc/passwd on ${session.where}`);
    return parseLoginUsers(result.stdout.toString('utf8'));
  });
}
