import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { MemoryHostKeyPins } from '../../../test/support/host-key-pins';
import { commandExists, findSshd, startSshd, type SshdFixture } from '../../../test/support/sshd';
import { RemoteHostError } from './errors';
import { exportSshPrivateKey } from './export';
import { generateSshKey } from './generate';
import type { GeneratedSshKey } from './key-record';
import {
  addAuthorizedKey,
  changeRemotePassword,
  enumerateLoginUsers,
  listAuthorizedKeys,
  probeSshBanner,
  readRemoteFile,
  removeAuthorizedKey,
  runRemoteCommand,
  writeRemoteFile,
  type SshTarget,
} from './index';

const sshdInstalled = findSshd() !== null;
if (!sshdInstalled) {
  console.warn('Skipping SSH remote integration tests: sshd is not installed (apt-get install -y openssh-server sshpass).');
}
const describeWithSshd = sshdInstalled ? describe : describe.skip;
const itWithSudo = commandExists('sudo') ? it : it.skip;

const PASSWORD = 'Initial-pass-1';

async function reasonOf(work: Promise<unknown>): Promise<{ reason: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (error instanceof RemoteHostError) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('expected a RemoteHostError');
}

describeWithSshd('SSH remote operations against a real sshd', () => {
  let sshd: SshdFixture;
  let root: SshTarget;
  const pins = new MemoryHostKeyPins();
  const asUser = (username: string, password = PASSWORD): SshTarget => ({ host: sshd.host, port: sshd.port, orgId: 1, username, password });

  beforeAll(async () => {
    pins.install();
    sshd = await startSshd();
    root = { host: sshd.host, port: sshd.port, orgId: 1, username: 'root', privateKey: sshd.rootPrivateKey };
  });
  afterAll(async () => {
    pins.uninstall();
    await sshd?.stop();
  });

  async function freshKey(comment = 'vault'): Promise<{ key: GeneratedSshKey; keyFile: string }> {
    const key = await generateSshKey({ type: 'ed25519', comment, passphrase: 'stored-phrase' });
    // ssh -i in BatchMode cannot type a passphrase, so the login check uses an unencrypted export.
    const keyFile = sshd.writeKeyFile(exportSshPrivateKey(key.privateKey, { passphrase: 'stored-phrase', exportPassphrase: '' }));
    return { key, keyFile };
  }

  describe('probeSshBanner', () => {
    let silent: Server;
    let http: Server;
    const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    afterAll(() => {
      silent?.close();
      http?.close();
    });

    it('reads the OpenSSH banner', async () => {
      await expect(probeSshBanner(sshd.host, sshd.port, 3000)).resolves.toMatch(/^SSH-2\.0-OpenSSH_/);
    });

    it('reports a closed port as unreachable', async () => {
      expect(await reasonOf(probeSshBanner('127.0.0.1', 1, 2000))).toEqual({ reason: 'unreachable', message: 'Cannot reach 127.0.0.1:1: connection refused' });
    });

    it('reports a non-SSH service and a silent one', async () => {
      http = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
      silent = createServer(() => undefined);
      const [httpPort, silentPort] = [await listen(http), await listen(silent)];
      expect((await reasonOf(probeSshBanner('127.0.0.1', httpPort, 2000))).reason).toBe('not_ssh');
      expect((await reasonOf(probeSshBanner('127.0.0.1', silentPort, 300))).reason).toBe('timeout');
    });
  });

  describe('connection failures', () => {
    it('names an unreachable port', async () => {
      expect(await reasonOf(enumerateLoginUsers({ ...root, port: 1 }))).toEqual({ reason: 'unreachable', message: 'Cannot reach 127.0.0.1:1: connection refused' });
    });

    it('names a failed authentication without the password', async () => {
      const user = await sshd.createUser(PASSWORD);
      const failure = await reasonOf(enumerateLoginUsers(asUser(user, 'Wrong-password-9')));
      expect(failure).toEqual({ reason: 'auth_failed', message: `Authentication to 127.0.0.1:${sshd.port} as ${user} failed` });
    });

    it('refuses a private key whose passphrase is wrong', async () => {
      const { key } = await freshKey();
      const failure = await reasonOf(enumerateLoginUsers({ ...root, privateKey: key.privateKey, passphrase: 'not-it' }));
      expect(failure.reason).toBe('auth_failed');
      expect(failure.message).not.toContain('not-it');
    });
  });

  it('enumerates login users, including root and a fresh user', async () => {
    const user = await sshd.createUser(PASSWORD);
    const users = await enumerateLoginUsers(asUser(user));
    const names = users.map((entry) => entry.userName);
    expect(names).toEqual(expect.arrayContaining(['root', user]));
    expect(users.find((entry) => entry.userName === user)).toMatchObject({ shell: '/bin/bash', home: sshd.homeOf(user) });
    expect(names).not.toContain('nobody');
  });

  describe('authorized keys, logged in as the user', () => {
    it('adds once, lets the key log in, lists it, removes it and the login fails again', async () => {
      const user = await sshd.createUser(PASSWORD);
      const { key, keyFile } = await freshKey('self-added');
      const target = asUser(user);

      expect((await sshd.clientLogin(user, { identityFile: keyFile })).ok).toBe(false);
      await expect(addAuthorizedKey(target, user, key.publicKey)).resolves.toEqual({ changed: 1 });
      expect(await sshd.clientLogin(user, { identityFile: keyFile })).toMatchObject({ ok: true });

      await expect(addAuthorizedKey(target, user, key.publicKey.replace('self-added', 'other comment'))).resolves.toEqual({ changed: 0 });
      const listed = await listAuthorizedKeys(target, user);
      expect(listed.map((entry) => entry.fingerprint)).toEqual([key.fingerprint]);

      const home = sshd.homeOf(user);
      expect(statSync(join(home, '.ssh')).mode & 0o777).toBe(0o700);
      expect(statSync(join(home, '.ssh/authorized_keys')).mode & 0o777).toBe(0o600);

      await expect(removeAuthorizedKey(target, user, key.publicKey)).resolves.toEqual({ changed: 1 });
      expect((await sshd.clientLogin(user, { identityFile: keyFile })).ok).toBe(false);
      await expect(listAuthorizedKeys(target, user)).resolves.toEqual([]);
    });
  });

  describe('authorized keys, logged in as root', () => {
    it("creates ~/.ssh owned by the user, and removal keeps the user's other lines byte for byte", async () => {
      const user = await sshd.createUser(PASSWORD);
      const home = sshd.homeOf(user);
      const { key, keyFile } = await freshKey('root-added');

      await expect(addAuthorizedKey(root, user, key.publicKey)).resolves.toEqual({ changed: 1 });
      const { uid } = statSync(home);
      expect(statSync(join(home, '.ssh'))).toMatchObject({ uid });
      expect(statSync(join(home, '.ssh/authorized_keys'))).toMatchObject({ uid });
      expect(statSync(join(home, '.ssh/authorized_keys')).mode & 0o777).toBe(0o600);
      expect(await sshd.clientLogin(user, { identityFile: keyFile })).toMatchObject({ ok: true });
      await expect(addAuthorizedKey(root, user, key.publicKey)).resolves.toEqual({ changed: 0 });

      const other = (await generateSshKey({ type: 'ecdsa', comment: 'keep' })).publicKey;
      const file = join(home, '.ssh/authorized_keys');
      const handWritten = `# hand written\r\n${other}\r\n${readFileSync(file, 'latin1')}  \t\nno-pty ${other.split(' ').slice(0, 2).join(' ')} tail`;
      writeFileSync(file, Buffer.from(handWritten, 'latin1'));
      await expect(removeAuthorizedKey(root, user, key.publicKey)).resolves.toEqual({ changed: 1 });
      expect(readFileSync(file, 'latin1')).toBe(`# hand written\r\n${other}\r\n  \t\nno-pty ${other.split(' ').slice(0, 2).join(' ')} tail`);
      expect((await sshd.clientLogin(user, { identityFile: keyFile })).ok).toBe(false);
    });

    it('does not follow a symlinked ~/.ssh into a root-owned place', async () => {
      const user = await sshd.createUser(PASSWORD);
      const home = sshd.homeOf(user);
      const rootOnly = `/run/vault-sshd-trap-${user}`;
      mkdirSync(rootOnly, { mode: 0o700 });
      symlinkSync(rootOnly, join(home, '.ssh'));
      try {
        const failure = await reasonOf(addAuthorizedKey(root, user, (await freshKey()).key.publicKey));
        expect(failure.reason).toBe('permission_denied');
        expect(existsSync(join(rootOnly, 'authorized_keys'))).toBe(false);
      } finally {
        rmSync(rootOnly, { recursive: true, force: true });
      }
    });

    it('reports an unknown user as not found', async () => {
      expect((await reasonOf(addAuthorizedKey(root, 'nosuchuser42', (await freshKey()).key.publicKey))).reason).toBe('not_found');
    });
  });

  describe('permissions', () => {
    it("refuses a non-root account editing another user's keys", async () => {
      const [alice, bob] = [await sshd.createUser(PASSWORD), await sshd.createUser(PASSWORD)];
      const failure = await reasonOf(addAuthorizedKey(asUser(alice), bob, (await freshKey()).key.publicKey));
      expect(failure.reason).toBe('permission_denied');
      expect(failure.message).toContain(`may not act as ${bob}`);
      expect(failure.message).not.toContain(PASSWORD);
      expect(existsIn(sshd.homeOf(bob), '.ssh')).toBe(false);
    });

    it('refuses a non-root account changing a password, without echoing it', async () => {
      const [alice, bob] = [await sshd.createUser(PASSWORD), await sshd.createUser(PASSWORD)];
      const failure = await reasonOf(changeRemotePassword(asUser(alice), bob, 'Never-shown-7'));
      expect(failure.reason).toBe('permission_denied');
      expect(failure.message).not.toMatch(/Never-shown-7|Initial-pass-1/);
    });

    itWithSudo('lets a sudoer edit keys and passwords through sudo -S', async () => {
      const admin = await sshd.createUser(PASSWORD, { sudo: true });
      const bob = await sshd.createUser(PASSWORD);
      const { key, keyFile } = await freshKey('via-sudo');

      await expect(addAuthorizedKey(asUser(admin), bob, key.publicKey)).resolves.toEqual({ changed: 1 });
      expect(statSync(join(sshd.homeOf(bob), '.ssh/authorized_keys')).uid).toBe(statSync(sshd.homeOf(bob)).uid);
      expect(await sshd.clientLogin(bob, { identityFile: keyFile })).toMatchObject({ ok: true });

      await changeRemotePassword(asUser(admin), bob, 'Sudo-set-pass-3');
      await expect(enumerateLoginUsers(asUser(bob, 'Sudo-set-pass-3'))).resolves.toBeDefined();

    });

    itWithSudo('refuses a wrong sudo password once, without echoing it', async () => {
      const admin = await sshd.createUser(PASSWORD, { sudo: true });
      const bob = await sshd.createUser(PASSWORD);
      const { key, keyFile } = await freshKey('admin-own');
      await addAuthorizedKey(root, admin, key.publicKey);
      // Logs in with the key; the password field is then only used for sudo.
      const target: SshTarget = { ...asUser(admin, 'Bad-sudo-pass-5'), privateKey: readFileSync(keyFile, 'utf8') };

      const failure = await reasonOf(addAuthorizedKey(target, bob, key.publicKey));
      expect(failure).toEqual({ reason: 'permission_denied', message: `${admin} on 127.0.0.1:${sshd.port} may not act as ${bob}: not root and sudo refused` });
      expect(existsIn(sshd.homeOf(bob), '.ssh')).toBe(false);
    });
  });

  describe('changeRemotePassword', () => {
    it('as root: the new password logs in, the old one no longer does', async () => {
      const user = await sshd.createUser(PASSWORD);
      await changeRemotePassword(root, user, 'Brand-new:pass 2');

      await expect(enumerateLoginUsers(asUser(user, 'Brand-new:pass 2'))).resolves.toBeDefined();
      expect((await reasonOf(enumerateLoginUsers(asUser(user, PASSWORD)))).reason).toBe('auth_failed');
      if (commandExists('sshpass')) {
        expect(await sshd.clientLogin(user, { password: 'Brand-new:pass 2' })).toMatchObject({ ok: true });
        expect((await sshd.clientLogin(user, { password: PASSWORD })).ok).toBe(false);
      }
    });

    it('reports an unknown user as not found and refuses a multi-line password', async () => {
      expect((await reasonOf(changeRemotePassword(root, 'nosuchuser42', 'Whatever-1'))).reason).toBe('not_found');
      await expect(changeRemotePassword(root, 'root', 'two\nlines')).rejects.toMatchObject({ code: 'invalid_password' });
    });
  });

  describe('files and commands', () => {
    it('writes a file atomically with its mode, overwriting, and reads it back', async () => {
      const user = await sshd.createUser(PASSWORD);
      const path = join(sshd.homeOf(user), 'cert.pem');
      await writeRemoteFile(asUser(user), path, Buffer.from('first\n'), 0o640);
      await writeRemoteFile(asUser(user), path, Buffer.from('second\n'), 0o600);

      expect(readFileSync(path, 'utf8')).toBe('second\n');
      expect(statSync(path).mode & 0o777).toBe(0o600);
      await expect(readRemoteFile(asUser(user), path)).resolves.toEqual(Buffer.from('second\n'));
      const leftovers = (await runRemoteCommand(asUser(user), 'ls -A')).stdout.split('\n').filter((name) => name.endsWith('.tmp'));
      expect(leftovers).toEqual([]);
    });

    it('maps SFTP failures to permission_denied and not_found', async () => {
      const user = await sshd.createUser(PASSWORD);
      expect((await reasonOf(writeRemoteFile(asUser(user), '/root/owned-by-root', Buffer.from('x'), 0o600))).reason).toBe('permission_denied');
      expect((await reasonOf(writeRemoteFile(asUser(user), '/no/such/dir/file', Buffer.from('x'), 0o600))).reason).toBe('not_found');
      expect((await reasonOf(readRemoteFile(asUser(user), '/no/such/file'))).reason).toBe('not_found');
    });

    it('runs a command and returns exit code, stdout and stderr, feeding stdin', async () => {
      const result = await runRemoteCommand(root, 'cat; echo out; echo err >&2; exit 3', { stdin: 'in\n' });
      expect(result).toEqual({ exitCode: 3, signal: null, stdout: 'in\nout\n', stderr: 'err\n' });
    });

    it('times out a command that runs too long', async () => {
      expect((await reasonOf(runRemoteCommand(root, 'sleep 5', { timeoutMs: 300 }))).reason).toBe('timeout');
    });
  });
});

function existsIn(dir: string, name: string): boolean {
  try {
    statSync(join(dir, name));
    return true;
  } catch {
    return false;
  }
}
