// Resident memory of the vault service while callers without a valid token upload: for each
// case, COUNT concurrent uploads of SIZE bytes on loopback (one source address, as one
// attacker), then the next case. Reports the server's peak resident memory over its
// resident memory before the case, and how many clients read a Failed answer. The chunked
// cases send no Content-Length, so no check of it can refuse them unread.
// Every case runs twice (the second round shows the steady state).
// `npm run bench -- preauth-memory` (BENCH_UPLOADS=100, BENCH_UPLOAD_MIB=10). Stops by itself.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { runMigrations } from '@app/persistence';
import { benchDatabase, startServer, stopServer } from './support';

const MiB = 1024 * 1024;
const boundary = 'bench-boundary';
const piece = Buffer.alloc(64 * 1024, 'a');

interface Case {
  name: string;
  path: string;
  headers: Record<string, string | number>;
  /** The body as pieces written in turn (a 64 KiB buffer reused). */
  body: (size: number) => Buffer[];
}

const repeat = (bytes: number) => {
  const out: Buffer[] = [];
  for (let left = bytes; left > 0; left -= piece.length) out.push(left >= piece.length ? piece : piece.subarray(0, left));
  return out;
};
const form = (size: number) => [Buffer.from('INPUT_DATA='), ...repeat(size - 11)];
const fileUpload = (size: number) => {
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="File"; filename="big.bin"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return [head, ...repeat(size - head.length - tail.length), tail];
};
/** 99 text fields of 1 MiB each (a body of about 99 MiB, whatever SIZE is). */
const fields = () => {
  const out: Buffer[] = [];
  for (let i = 0; i < 99; i++) out.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="F${i}"\r\n\r\n`), ...repeat(MiB), Buffer.from('\r\n'));
  out.push(Buffer.from(`--${boundary}--\r\n`));
  return out;
};
const length = (parts: Buffer[]) => parts.reduce((n, p) => n + p.length, 0);
const multipartType = `multipart/form-data; boundary=${boundary}`;

const CASES: Case[] = [
  { name: 'no token (form, Content-Length)', path: '/restapi/json/v1/resources', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form },
  { name: 'unknown token (multipart file)', path: '/api/pki/restapi/addSSHKey', headers: { AUTHTOKEN: 'f'.repeat(64), 'Content-Type': multipartType }, body: fileUpload },
  { name: 'no token, chunked (form)', path: '/restapi/json/v1/resources/1/accounts', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Transfer-Encoding': 'chunked' }, body: form },
  { name: 'no token, chunked multipart 99 x 1 MiB fields', path: '/api/pki/restapi/addSSHKey', headers: { 'Content-Type': multipartType, 'Transfer-Encoding': 'chunked' }, body: fields },
];

/** One upload; resolves whether the client read a Failed answer. */
function upload(port: number, c: Case, size: number): Promise<boolean> {
  return new Promise((resolve) => {
    const parts = c.body(size);
    const headers = { ...c.headers, ...(c.headers['Transfer-Encoding'] ? {} : { 'Content-Length': length(parts) }) };
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: c.path, headers, agent: false });
    let answered = false;
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        answered = true;
        resolve(/"status":"Failed"/.test(Buffer.concat(chunks).toString('utf8')));
      });
    });
    req.on('error', () => !answered && resolve(false));
    let i = 0;
    const pump = () => {
      while (i < parts.length) if (!req.write(parts[i++])) return void req.once('drain', pump);
      req.end();
    };
    pump();
  });
}

const status = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

export async function main(count = Number(process.env.BENCH_UPLOADS ?? 100), size = Number(process.env.BENCH_UPLOAD_MIB ?? 10) * MiB) {
  const db = await benchDatabase();
  await runMigrations(db.url);
  const dataDir = mkdtempSync(join(tmpdir(), 'preauth-memory-'));
  const env = { DATABASE_URL: db.url, DB_POOL_SIZE: '10', MASTER_KEY: randomBytes(32).toString('hex'), DATA_DIR: dataDir };
  const { port, child } = await startServer('full-server.js', env);
  const pid = child.pid!;
  const rows = [];
  try {
    // Warm up: the first requests load code and fill the pool.
    await Promise.all(Array.from({ length: 5 }, () => upload(port, CASES[0], 1024)));
    const baseline = status(pid, 'VmRSS');
    let highest = baseline;
    // BENCH_CASES=0,1 runs only those cases (by index).
    const cases = process.env.BENCH_CASES ? process.env.BENCH_CASES.split(',').map((i) => CASES[Number(i)]) : CASES;
    for (const [round, c] of [...cases, ...cases].map((c, i) => [Math.floor(i / cases.length) + 1, c] as const)) {
      await new Promise((r) => setTimeout(r, 1000));
      const before = status(pid, 'VmRSS');
      writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets the peak (VmHWM) to now
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: count }, () => upload(port, c, size)));
      const peak = status(pid, 'VmHWM');
      highest = Math.max(highest, peak);
      rows.push({
        round,
        case: c.name,
        uploads: count,
        'MiB each': +(length(c.body(size)) / MiB).toFixed(1),
        'RSS before MiB': +(before / MiB).toFixed(1),
        'peak growth MiB': +((peak - before) / MiB).toFixed(1),
        'read Failed': `${answers.filter(Boolean).length}/${count}`,
        seconds: +((Date.now() - started) / 1000).toFixed(1),
      });
    }
    console.log(`node ${process.version}; vault service, DB_POOL_SIZE=10; RSS after warm-up ${(baseline / MiB).toFixed(1)} MiB, highest ${(highest / MiB).toFixed(1)} MiB`);
    console.table(rows);
  } finally {
    await stopServer(child);
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
