import { randomBytes } from 'node:crypto';
import { RemoteHostError } from '../errors';
import type { RawCommandResult, SshSession } from './session';
import { shellQuote } from './shell';

/**
 * How a script gets run as a given account:
 * - direct: we are logged in as that account;
 * - su: we are root and drop to the account, so files it writes are its own and a
 *   symlink planted in its home cannot make root write elsewhere;
 * - sudo: another account that may use sudo (password from the target, if any, via stdin).
 */
export type RunAsPlan = { mode: 'direct' } | { mode: 'su'; user: string } | { mode: 'sudo'; user: string; password?: string };

export interface RemoteIdentity {
  uid: number;
  userName: string;
  /** Whether the account asked about exists; undefined when none was asked about. */
  subjectExists?: boolean;
}

/** Who we are logged in as, and whether `subject` (already validated) exists. */
export async function whoAmI(session: SshSession, subject?: string): Promise<RemoteIdentity> {
  const check = subject ? `; id -u ${shellQuote(subject)} >/dev/null 2>&1 && echo yes || echo no` : '';
  const result = await session.exec(`id -u; id -un${check}`);
  const [uidText, userName, exists] = result.stdout.toString('utf8').split('\n');
  if (!/^\d+$/.test(uidText ?? '')) {
    throw new RemoteHostError('command_failed', `Cannot determine the remote account on ${session.where}`);
  }
  return { uid: Number(uidText), userName: userName ?? '', subjectExists: subject ? exists === 'yes' : undefined };
}

/** Plan for acting as `user`; `root` asks for root rights. */
export function planRunAs(identity: RemoteIdentity, user: string, sudoPassword?: string): RunAsPlan {
  if (identity.userName === user || (user === 'root' && identity.uid === 0)) return { mode: 'direct' };
  if (identity.uid === 0) return { mode: 'su', user };
  return { mode: 'sudo', user, password: sudoPassword };
}

/**
 * The script reads its input after a random marker line; a sudo password line before it is
 * consumed by sudo when sudo asks, and skipped by the script when sudo does not ask.
 */
function frame(marker: string, script: string): string {
  return `while IFS= read -r line; do [ "$line" = ${marker} ] && break; done\n${script}`;
}

function commandFor(plan: RunAsPlan, script: string): string {
  switch (plan.mode) {
    case 'direct':
      return `sh -c ${shellQuote(script)}`;
    case 'su':
      return `su -s /bin/sh ${shellQuote(plan.user)} -c ${shellQuote(script)}`;
    case 'sudo':
      return `sudo ${plan.password === undefined ? '-n' : "-S -p ''"} -H -u ${shellQuote(plan.user)} -- sh -c ${shellQuote(script)}`;
  }
}

/**
 * Checks sudo once with only the password on stdin, so a wrong password is tried once and
 * is never followed by our data lines being tried as further passwords.
 */
async function checkSudo(session: SshSession, plan: Extract<RunAsPlan, { mode: 'sudo' }>, actor: string): Promise<void> {
  const flags = plan.password === undefined ? '-n' : "-S -p '' -k";
  const result = await session.exec(`sudo ${flags} -u ${shellQuote(plan.user)} -- true`, {
    stdin: plan.password === undefined ? undefined : `${plan.password}\n`,
  });
  if (result.exitCode === 0) return;
  const why = result.exitCode === 127 ? 'sudo is not installed' : 'sudo refused';
  throw new RemoteHostError('permission_denied', `${actor} on ${session.where} may not act as ${plan.user}: not root and ${why}`);
}

export async function runAs(session: SshSession, plan: RunAsPlan, actor: string, script: string, input: Buffer = Buffer.alloc(0)): Promise<RawCommandResult> {
  if (plan.mode === 'sudo') await checkSudo(session, plan, actor);
  const marker = `input-${randomBytes(12).toString('hex')}`;
  const prelude = plan.mode === 'sudo' && plan.password !== undefined ? `${plan.password}\n` : '';
  const stdin = Buffer.concat([Buffer.from(`${prelude}${marker}\n`, 'utf8'), input]);
  return session.exec(commandFor(plan, frame(marker, script)), { stdin });
}
