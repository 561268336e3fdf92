import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

/**
 * A real OpenSSH sshd on 127.0.0.1 with its own host key and config, plus throwaway local
 * users. Needs root (useradd, chpasswd) and the openssh-server package; `sshpass` for
 * password logins with the real client; `sudo` for sudoer users.
 *
 *   const sshd = await startSshd();
 *   const user = await sshd.createUser('S3cret-pass');
 *   ... { host: sshd.host, port: sshd.port, username: user, password: 'S3cret-pass' } ...
 *   await sshd.stop();
 */
export interface SshdFixture {
  host: string;
  port: number;
  /** Logs in as root; its public key is only in this sshd's own key file, never in /root. */
  rootPrivateKey: string;
  /** Creates a local user with a bash shell and a home; `sudo` adds a sudoers.d entry. */
  createUser(password: string, options?: { sudo?: boolean }): Promise<string>;
  /** Home directory from /etc/passwd. */
  homeOf(userName: string): string;
  /** Writes a private key to a 0600 file for `ssh -i` and returns its path. */
  writeKeyFile(privateKey: string): string;
  /** Tries `true` over the real ssh client with a key file or (through sshpass) a password. */
  clientLogin(userName: string, credentials: { identityFile?: string; password?: string }): Promise<ClientLoginResult>;
  /** sshd's own log (-e), for failure messages. */
  log(): string;
  /** The host key's fingerprint as `ssh-keygen -lf` prints it (`SHA256:...`). */
  hostKeyFingerprint(): Promise<string>;
  /** Replaces the host key with a new one and has sshd reload it (SIGHUP), as a reinstalled or spoofed host would present. */
  regenerateHostKey(): Promise<void>;
  /** Stops sshd, deletes the users with their homes, removes the temp directory. */
  stop(): Promise<void>;
}

export interface ClientLoginResult {
  ok: boolean;
  exitCode: number | null;
  stderr: string;
}

const run = promisify(execFile);
const SSHD_CANDIDATES = ['/usr/sbin/sshd', '/usr/local/sbin/sshd', '/usr/bin/sshd'];
const LOOPBACK = '127.0.0.1';

/** Absolute path of sshd (it refuses to start without one), or null when not installed. */
export function findSshd(): string | null {
  return SSHD_CANDIDATES.find((path) => existsSync(path)) ?? null;
}

export function commandExists(name: string): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin').split(':').some((dir) => existsSync(join(dir, name)));
}

function sshdConfig(dir: string, port: number, extra: string[]): string {
  return [
    `Port ${port}`,
    `ListenAddress ${LOOPBACK}`,
    `HostKey ${join(dir, 'host_ed25519')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile .ssh/authorized_keys ${join(dir, 'authorized')}/%u`,
    'PasswordAuthentication yes',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    'PermitRootLogin prohibit-password',
    // Password checks against /etc/shadow directly, so no PAM stack is needed.
    'UsePAM no',
    // Kept on: the tests prove that the modes we give ~/.ssh and authorized_keys satisfy it.
    'StrictModes yes',
    'MaxAuthTries 20',
    'MaxStartups 200',
    'LogLevel VERBOSE',
    'PrintMotd no',
    'Subsystem sftp internal-sftp',
    ...extra,
    '',
  ].join('\n');
}

/** OpenSSH 9.8+ penalises failed logins per source address; tests fail logins on purpose. */
async function writeConfig(sshd: string, dir: string, port: number): Promise<string> {
  const path = join(dir, 'sshd_config');
  writeFileSync(path, sshdConfig(dir, port, ['PerSourcePenalties no']));
  try {
    await run(sshd, ['-t', '-f', path]);
  } catch {
    writeFileSync(path, sshdConfig(dir, port, []));
    await run(sshd, ['-t', '-f', path]);
  }
  return path;
}

function waitForListening(child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`sshd did not start within ${timeoutMs} ms:\n${output()}`)), timeoutMs);
    const poll = setInterval(() => {
      if (output().includes('Server listening on')) done();
    }, 25);
    const onExit = () => done(new Error(`sshd exited during start:\n${output()}`));
    child.once('exit', onExit);
    function done(error?: Error): void {
      clearTimeout(timer);
      clearInterval(poll);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    }
  });
}

/** useradd and userdel lock /etc/passwd; parallel test files may collide, so retry briefly. */
async function withPasswdLock(args: [string, string[], { input?: string }?]): Promise<void> {
  const [command, commandArgs, options] = args;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await runWithInput(command, commandArgs, options?.input);
      return;
    } catch (error) {
      if (attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

function runWithInput(command: string, args: string[], input?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, (error, _stdout, stderr) => (error ? reject(new Error(`${command} failed: ${stderr}`)) : resolve()));
    // A command that exits without reading its input closes the pipe (EPIPE); its exit
    // status, checked above, is what tells success.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

export async function startSshd(): Promise<SshdFixture> {
  const sshd = findSshd();
  if (!sshd) throw new Error('sshd is not installed (apt-get install -y openssh-server)');
  if (process.getuid?.() !== 0) throw new Error('The sshd fixture needs root to create throwaway users');

  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  // Under /run rather than /tmp: StrictModes rejects key files below a world-writable directory.
  const dir = mkdtempSync('/run/vault-sshd-');
  mkdirSync(join(dir, 'authorized'), { mode: 0o755 });
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'fixture-host', '-f', join(dir, 'host_ed25519')]);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'fixture-root', '-f', join(dir, 'root_id')]);
  writeFileSync(join(dir, 'authorized', 'root'), readFileSync(join(dir, 'root_id.pub')), { mode: 0o644 });

  const port = await freePort();
  const config = await writeConfig(sshd, dir, port);
  const child = spawn(sshd, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-64 * 1024);
  });
  try {
    await waitForListening(child, () => output, 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const users: string[] = [];
  const sudoers: string[] = [];
  let keyFiles = 0;
  let stopped = false;

  return {
    host: LOOPBACK,
    port,
    rootPrivateKey: readFileSync(join(dir, 'root_id'), 'utf8'),

    async createUser(password, options = {}) {
      const name = `vt${randomBytes(5).toString('hex')}`;
      await withPasswdLock(['useradd', ['-m', '-s', '/bin/bash', name]]);
      users.push(name);
      await withPasswdLock(['chpasswd', [], { input: `${name}:${password}\n` }]);
      if (options.sudo) {
        const file = `/etc/sudoers.d/${name}`;
        writeFileSync(file, `${name} ALL=(ALL) ALL\n`, { mode: 0o440 });
        sudoers.push(file);
      }
      return name;
    },

    homeOf(userName) {
      const line = readFileSync('/etc/passwd', 'utf8')
        .split('\n')
        .find((entry) => entry.startsWith(`${userName}:`));
      if (!line) throw new Error(`no such user ${userName}`);
      return line.split(':')[5];
    },

    writeKeyFile(privateKey) {
      const path = join(dir, `client_key_${(keyFiles += 1)}`);
      writeFileSync(path, privateKey.endsWith('\n') ? privateKey : `${privateKey}\n`, { mode: 0o600 });
      return path;
    },

    async clientLogin(userName, credentials) {
      const common = ['-F', '/dev/null', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'ConnectTimeout=10', '-o', 'LogLevel=ERROR', '-p', String(port)];
      const [command, args, env] = credentials.identityFile
        ? ['ssh', [...common, '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'PreferredAuthentications=publickey', '-i', credentials.identityFile], process.env]
        : [
            'sshpass',
            ['-e', 'ssh', ...common, '-o', 'PreferredAuthentications=password', '-o', 'PubkeyAuthentication=no', '-o', 'NumberOfPasswordPrompts=1'],
            { ...process.env, SSHPASS: credentials.password ?? '' },
          ];
      try {
        await run(command, [...args, `${userName}@${LOOPBACK}`, 'true'], { env, timeout: 20_000 });
        return { ok: true, exitCode: 0, stderr: '' };
      } catch (error) {
        const failure = error as { code?: number | string; stderr?: string };
        return { ok: false, exitCode: typeof failure.code === 'number' ? failure.code : null, stderr: failure.stderr ?? String(error) };
      }
    },

    log: () => output,

    async hostKeyFingerprint() {
      const { stdout } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'host_ed25519.pub')]);
      return stdout.split(' ')[1];
    },

    async regenerateHostKey() {
      rmSync(join(dir, 'host_ed25519'), { force: true });
      rmSync(join(dir, 'host_ed25519.pub'), { force: true });
      await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'fixture-host-2', '-f', join(dir, 'host_ed25519')]);
      const listening = output.split('Server listening on').length;
      // sshd re-executes itself on SIGHUP (same pid, same stderr) and loads the host keys again.
      child.kill('SIGHUP');
      const deadline = Date.now() + 10_000;
      while (output.split('Server listening on').length <= listening) {
        if (Date.now() > deadline) throw new Error(`sshd did not restart after SIGHUP:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },

    async stop() {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      for (const file of sudoers) rmSync(file, { force: true });
      for (const name of users) {
        // -f: a session child of the stopped sshd may still hold the account for a moment.
        await withPasswdLock(['userdel', ['-f', '-r', name]]).catch(() => undefined);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
