import { RemoteHostError } from './errors';
import { withSshSession } from './remote/session';
import type { SshTarget } from './remote/target';

/**
 * Logs in with the target's password; with `asAdmin`, also proves root rights (uid 0, or
 * sudo accepting that password), so only credentials that work are ever stored.
 */
export async function verifySshLogin(target: SshTarget, asAdmin: boolean): Promise<void> {
  await withSshSession(target, async (session) => {
    if (!asAdmin) return;
    const id = await session.exec('id -u');
    if (id.stdout.toString('utf8').trim() === '0') return;
    // -k: always ask, so a cached sudo ticket cannot stand in for the password.
    const sudo = await session.exec(`sudo -S -p '' -k -u root -- true`, { stdin: `${target.password ?? ''}\n` });
    if (sudo.exitCode !== 0) {
      throw new RemoteHostError('permission_denied', `${target.username} on ${session.where} is neither root nor allowed to use sudo`);
    }
  });
}
