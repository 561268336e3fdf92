import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AUTH_FAILED_MESSAGE } from '@app/http';
import { startTestServices, TestServices } from '../support/app';

const run = promisify(execFile);
const MiB = 1024 * 1024;
/**
 * The documented bound (docs/security.md, "Bounded before authentication"): 100 uploads of 10 MiB
 * with a bad token raise this process's peak resident memory by less than this. Before the
 * token was checked first they raised it by about 930 MiB; now each holds at most the
 * socket's buffers. Generous: this process also runs jest, both services and the pool.
 */
const RSS_BOUND = 160 * MiB;

/** Peak resident memory of this process since the last reset (Linux), else null. */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}
function peakRss(): number {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

async function flood(url: string, token: string, count: number, size: number, carrier: 'header' | 'query' = 'header'): Promise<Record<string, number>> {
  const script = join(__dirname, '..', 'support', 'upload-flood.js');
  const { stdout } = await run(process.execPath, [script, url, token, String(count), String(size), carrier], { maxBuffer: 16 * MiB });
  return JSON.parse(stdout);
}

/**
 * Every upload got the authentication failure. The server answers without reading the body,
 * so now and then a client's write meets the closed socket (EPIPE) before it reads that
 * answer; nothing else may come back, and most must read it.
 */
function expectRefused(answers: Record<string, number>, count: number): void {
  const { [`200 ${AUTH_FAILED_MESSAGE}`]: refused = 0, 'error EPIPE': closed = 0, ...other } = messages(answers);
  expect(other).toEqual({});
  expect(refused + closed).toBe(count);
  expect(refused).toBeGreaterThanOrEqual(Math.ceil(count * 0.75));
}

/** `{ "<status> <body>": count }` → `{ "<status> <result message>": count }`. */
function messages(answers: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(answers)) {
    const space = key.indexOf(' ');
    let label = key;
    try {
      const body = JSON.parse(key.slice(space + 1));
      label = `${key.slice(0, space)} ${(body.result ?? body.operation?.result)?.message}`;
    } catch {
      // Not JSON (a socket error): keep it as it is, so the assertion shows it.
    }
    out[label] = (out[label] ?? 0) + n;
  }
  return out;
}

describe('request bodies are bounded before authentication', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('100 concurrent 10 MiB multipart uploads with a bad header token: all refused as unauthenticated, memory bounded, nothing on disk', async () => {
    const sampler = { peak: process.memoryUsage().rss };
    const canReset = resetPeak();
    const baseline = canReset ? peakRss() : process.memoryUsage().rss;
    const timer = setInterval(() => (sampler.peak = Math.max(sampler.peak, process.memoryUsage().rss)), 5);
    const answers = await flood(`${s.pkiUrl}/api/pki/restapi/addSSHKey`, 'not-a-valid-token', 100, 10 * MiB);
    clearInterval(timer);
    const peak = canReset ? peakRss() : sampler.peak;

    expectRefused(answers, 100);
    expect(peak - baseline).toBeLessThan(RSS_BOUND);
    const uploads = join(s.config.dataDir, 'uploads');
    for (const dir of readdirSync(uploads)) expect(readdirSync(join(uploads, dir))).toEqual([]);
  });

  it('the same with the token in the query, on the vault', async () => {
    const answers = await flood(`${s.vaultUrl}/api/pki/restapi/addSSHKey`, 'not-a-valid-token', 20, 10 * MiB, 'query');
    expectRefused(answers, 20);
  });

  it('a valid token uploads as before, and the temporary files are gone after the answer', async () => {
    const answers = await flood(`${s.pkiUrl}/api/pki/restapi/addSSHKey`, s.adminToken, 3, 64 * 1024);
    // Accepted for reading: the key file is garbage, so the import itself fails with a reason.
    expect(Object.keys(messages(answers))).toEqual([expect.stringMatching(/^200 (?!API key received)/)]);
    const uploads = join(s.config.dataDir, 'uploads');
    expect(existsSync(uploads)).toBe(true);
    for (const dir of readdirSync(uploads)) expect(readdirSync(join(uploads, dir))).toEqual([]);
  });
});
