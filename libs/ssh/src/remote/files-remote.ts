import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { RemoteHostError } from '../errors';
import { MAX_COMMAND_OUTPUT_BYTES, withSshSession } from './session';
import type { SshTarget } from './target';

export interface RemoteCommandResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

export interface RunRemoteCommandOptions {
  stdin?: Buffer | string;
  timeoutMs?: number;
}

const SFTP_NO_SUCH_FILE = 2;
const SFTP_PERMISSION_DENIED = 3;

function validatePath(path: string): void {
  if (!path || /[\0\r\n]/.test(path) || path.endsWith('/')) {
    throw new RemoteHostError('not_found', 'The remote path must be a file path without line breaks');
  }
}

function sftpError(error: unknown, action: string, path: string, where: string): RemoteHostError {
  const code = (error as { code?: unknown })?.code;
  if (code === SFTP_NO_SUCH_FILE) return new RemoteHostError('not_found', `Cannot ${action} ${path} on ${where}: no such file or directory`);
  if (code === SFTP_PERMISSION_DENIED) return new RemoteHostError('permission_denied', `Cannot ${action} ${path} on ${where}: permission denied`);
  return new RemoteHostError('command_failed', `Cannot ${action} ${path} on ${where}`);
}

function call(operation: (done: (error?: Error | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => operation((error) => (error ? reject(error) : resolve())));
}

async function replace(sftp: SFTPWrapper, from: string, to: string): Promise<void> {
  try {
    await call((done) => sftp.ext_openssh_rename(from, to, done));
  } catch (error) {
    // Plain SFTP rename refuses to overwrite; without the OpenSSH extension fall back to unlink + rename.
    if ((error as { code?: unknown }).code !== undefined) throw error;
    await call((done) => sftp.unlink(to, done)).catch(() => undefined);
    await call((done) => sftp.rename(from, to, done));
  }
}

/** Writes a file through SFTP atomically: a temporary file beside it, then a rename over it. */
export async function writeRemoteFile(target: SshTarget, path: string, content: Buffer, mode: number): Promise<void> {
  validatePath(path);
  const temporary = posix.join(posix.dirname(path), `.${posix.basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  return withSshSession(target, async (session) => {
    const sftp = await session.sftp();
    try {
      await call((done) => sftp.writeFile(temporary, content, { mode }, done));
      // The remote umask may have narrowed the mode given at creation.
      await call((done) => sftp.chmod(temporary, mode, done));
      await replace(sftp, temporary, path);
    } catch (error) {
      await call((done) => sftp.unlink(temporary, done)).catch(() => undefined);
      throw sftpError(error, 'write', path, session.where);
    }
  });
}

export async function readRemoteFile(target: SshTarget, path: string): Promise<Buffer> {
  validatePath(path);
  return withSshSession(target, async (session) => {
    const sftp = await session.sftp();
    // Bounded as a command's output is: a larger file is not one we read into memory.
    const size = await new Promise<number>((resolve, reject) => {
      sftp.stat(path, (error, stats) => (error ? reject(sftpError(error, 'read', path, session.where)) : resolve(stats.size)));
    });
    if (size > MAX_COMMAND_OUTPUT_BYTES) {
      throw new RemoteHostError('command_failed', `${path} on ${session.where} is larger than ${MAX_COMMAND_OUTPUT_BYTES} bytes; not read`);
    }
    return new Promise<Buffer>((resolve, reject) => {
      sftp.readFile(path, (error, data) => (error ? reject(sftpError(error, 'read', path, session.where)) : resolve(data)));
    });
  });
}

/**
 * Runs a command line as given; callers must build it from constants and shellQuote()d
 * words only. A non-zero exit is a result, not an error.
 */
export async function runRemoteCommand(target: SshTarget, command: string, options: RunRemoteCommandOptions = {}): Promise<RemoteCommandResult> {
  return withSshSession(target, async (session) => {
    const result = await session.exec(command, options);
    return { exitCode: result.exitCode, signal: result.signal, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8') };
  });
}
