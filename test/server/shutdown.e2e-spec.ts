import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { Client } from 'pg';
import { createTestDatabase } from '../support/database';
import { inputData } from '../support/http';
import { freePort } from '../support/free-port';

const ROOT = join(__dirname, '..', '..');

/**
 * A real process running both services (the entry point deploy/credential-vault.service runs,
 * from the sources) gets SIGTERM, or SIGINT (Ctrl-C, `systemctl kill -s INT`), while a request
 * is in flight: /health answers 503 at once, the request still gets its full answer, the job it
 * ran is finished (not interrupted), then the database closes, the process exits 0 and the
 * port is shut.
 */
describe.each(['SIGTERM', 'SIGINT'] as const)('graceful shutdown on %s (real process)', (signal) => {
  let child: ChildProcess;
  let output = '';
  let silent: Server;
  const sockets: Socket[] = [];
  let reached: Promise<void>;
  let port: number;
  let databaseUrl: string;

  beforeAll(async () => {
    // A peer that accepts and never answers: a discovery of it runs until its TIMEOUT.
    let onConnection!: () => void;
    reached = new Promise((resolve) => (onConnection = resolve));
    silent = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      onConnection();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    databaseUrl = await createTestDatabase();
    port = await freePort();
    const pkiPort = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-shutdown-'));
    child = spawn(process.execPath, ['-r', './test/support/ts-register.js', 'apps/all/src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        TLS_MODE: 'off',
        BIND_ADDRESS: '127.0.0.1',
        VAULT_PORT: String(port),
        PKI_PORT: String(pkiPort),
        LOG_FORMAT: 'json',
        SHUTDOWN_DELAY_MS: '4000',
        SHUTDOWN_GRACE_MS: '30000',
        DB_POOL_SIZE: '4',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    await waitFor(() => output.includes('pki listening on'), 90_000, () => output);
    (globalThis as { token?: string }).token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
  }, 120_000);

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('answers 503 on /health while draining, finishes the request in flight, stops its work cleanly and exits 0', async () => {
    const token = (globalThis as { token?: string }).token!;
    const base = `http://127.0.0.1:${port}`;
    expect((await request(base).get('/health')).status).toBe(200);
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

    // A single-host discovery answers inline; the silent peer keeps it busy for TIMEOUT seconds.
    const inFlight = request(base)
      .post('/api/pki/restapi/sslCertSingleDiscovery')
      .set('AUTHTOKEN', token)
      .type('form')
      .send({ INPUT_DATA: inputData({ HOST: '127.0.0.1', PORT: String((silent.address() as { port: number }).port), TIMEOUT: '8' }) })
      .then((res) => res);
    await reached;
    child.kill(signal);
    await waitFor(() => output.includes('Draining'), 10_000, () => output);

    const health = await request(base).get('/health');
    expect(health.status).toBe(503);
    expect(health.body).toEqual({ status: 'draining' });

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ name: 'Get SSL Discovery', result: { status: 'Success' }, '127.0.0.1': ['FAILURE', 'Timed out after 8s'] });

    expect(await exited).toEqual({ code: 0, signal: null });
    await expect(request(base).get('/health')).rejects.toThrow(/ECONNREFUSED/);

    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const jobs = await db.query(`SELECT status FROM jobs WHERE kind = 'ssl-discovery'`);
      expect(jobs.rows).toEqual([{ status: 'done' }]);
    } finally {
      await db.end();
    }
    const lines = output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    const messages: string[] = lines.map((l) => l.message).filter(Boolean);
    expect(messages).toContain(`${signal} received`);
    // The stop says what it drained: the one discovery request in flight.
    expect(messages.find((m) => m.startsWith('Draining'))).toMatch(/1 request\(s\) and 1 discovery job\(s\) in flight/);
    expect(messages).toContain('Stopped: drained 1 request(s) and 1 discovery job(s)');
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
    expect(lines.find((l) => l.operation === 'Get SSL Discovery')).toMatchObject({ outcome: 'success', status: 200 });
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  }, 120_000);
});

async function waitFor(check: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting; output so far:\n${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

