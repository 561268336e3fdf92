import type { Client, ClientChannel, ConnectConfig, SFTPWrapper } from 'ssh2';
import { RemoteHostError } from '../errors';
import { connectionError } from './connection-errors';
import { checkHostKey, presentedHostKey } from './host-key';
import { newSshClient } from './ssh2-client';
import { DEFAULT_CONNECT_TIMEOUT_MS, hostLabel, type SshTarget } from './target';

export interface ExecOptions {
  stdin?: Buffer | string;
  /** Default 60 s. */
  timeoutMs?: number;
}

export interface RawCommandResult {
  /** null when the command was ended by a signal. */
  exitCode: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
/**
 * What one command may write (stdout and stderr together). Every command we run answers in a
 * few kilobytes; a host that sends more is not one we can trust with memory, so the command
 * fails and the connection is closed.
 */
export const MAX_COMMAND_OUTPUT_BYTES = 1024 * 1024;

/** One authenticated SSH connection; close() it when done (withSshSession does). */
export class SshSession {
  private sftpChannel?: Promise<SFTPWrapper>;

  constructor(
    private readonly client: Client,
    readonly target: SshTarget,
  ) {}

  get where(): string {
    return hostLabel(this.target.host, this.target.port);
  }

  exec(command: string, options: ExecOptions = {}): Promise<RawCommandResult> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      this.client.exec(command, (error, channel) => {
        if (error) {
          reject(new RemoteHostError('command_failed', `${this.where} refused to run a command: ${error.message}`));
          return;
        }
        collect(channel, options.stdin, timeoutMs, this.where, () => this.client.end()).then(resolve, reject);
      });
    });
  }

  sftp(): Promise<SFTPWrapper> {
    this.sftpChannel ??= new Promise((resolve, reject) => {
      this.client.sftp((error, sftp) => {
        if (error) reject(new RemoteHostError('command_failed', `${this.where} refused an SFTP session: ${error.message}`));
        else resolve(sftp);
      });
    });
    return this.sftpChannel;
  }

  close(): void {
    this.client.end();
  }
}

function collect(
  channel: ClientChannel,
  stdin: Buffer | string | undefined,
  timeoutMs: number,
  where: string,
  closeConnection: () => void,
): Promise<RawCommandResult> {
  return new Promise((resolve, reject) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let received = 0;
    let exitCode: number | null = null;
    let signal: string | null = null;
    let failed = false;
    const fail = (error: RemoteHostError) => {
      if (failed) return;
      failed = true;
      clearTimeout(timer);
      reject(error);
      stdout.length = 0;
      stderr.length = 0;
    };
    const timer = setTimeout(() => {
      fail(new RemoteHostError('timeout', `A command on ${where} did not finish within ${timeoutMs} ms`));
      // sshd only confirms the close once the command exits, so do not wait for it.
      channel.signal('KILL');
      channel.close();
    }, timeoutMs);
    const take = (into: Buffer[]) => (chunk: Buffer) => {
      if (failed) return;
      received += chunk.length;
      if (received > MAX_COMMAND_OUTPUT_BYTES) {
        fail(new RemoteHostError('command_failed', `A command on ${where} wrote more than ${MAX_COMMAND_OUTPUT_BYTES} bytes of output; the connection was closed`));
        channel.signal('KILL');
        closeConnection();
        return;
      }
      into.push(chunk);
    };
    channel.on('data', take(stdout));
    channel.stderr.on('data', take(stderr));
    channel.on('exit', (code: number | null, signalName?: string) => {
      exitCode = code;
      signal = signalName ?? null;
    });
    channel.on('close', () => {
      clearTimeout(timer);
      if (!failed) resolve({ exitCode, signal, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) });
    });
    // A command that does not read stdin may close it first; that is not an error here.
    channel.on('error', () => undefined);
    channel.end(stdin ?? undefined);
  });
}

export async function openSshSession(target: SshTarget): Promise<SshSession> {
  const timeoutMs = target.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const fail = (error: unknown) => connectionError(error, target.host, target.port, target.username, timeoutMs);
  const client = await newSshClient();
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (!settled) {
        settled = true;
        outcome();
      }
    };
    // Set when the host key was refused: ssh2 then reports only a generic handshake error.
    let refusal: RemoteHostError | undefined;
    client.on('ready', () => settle(() => resolve(new SshSession(client, target))));
    client.on('error', (error) => settle(() => reject(refusal ?? fail(error))));
    client.on('close', () =>
      settle(() => reject(refusal ?? new RemoteHostError('unreachable', `Cannot reach ${hostLabel(target.host, target.port)}: connection closed`))),
    );
    client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) => {
      finish(prompts.map(() => target.password ?? ''));
    });
    const config: ConnectConfig = {
      host: target.host,
      port: target.port,
      username: target.username,
      password: target.password,
      privateKey: target.privateKey,
      passphrase: target.passphrase,
      tryKeyboard: target.password !== undefined,
      readyTimeout: timeoutMs,
      // Runs during the key exchange, before any authentication: a refused key gets no password.
      hostVerifier: (key: Buffer, verify: (valid: boolean) => void) => {
        checkHostKey(target, presentedHostKey(key)).then(
          () => verify(true),
          (error: unknown) => {
            refusal =
              error instanceof RemoteHostError
                ? error
                : new RemoteHostError('host_key_rejected', `The host key of ${hostLabel(target.host, target.port)} could not be checked; nothing was sent`);
            verify(false);
          },
        );
      },
    };
    try {
      client.connect(config);
    } catch {
      // ssh2 throws synchronously when it cannot read the private key (e.g. wrong passphrase).
      settle(() =>
        reject(new RemoteHostError('auth_failed', `The private key for ${target.username} at ${hostLabel(target.host, target.port)} cannot be read (wrong or missing passphrase?)`)),
      );
    }
  });
}

export async function withSshSession<T>(target: SshTarget, work: (session: SshSession) => Promise<T>): Promise<T> {
  const session = await openSshSession(target);
  try {
    return await work(session);
  } finally {
    session.close();
  }
}
