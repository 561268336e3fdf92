import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { type ImportedSshKey, type ImportSshKeyOptions, importSshPrivateKey, SshKeyError } from '@app/ssh';
import { checkPkcs12Costs, withinLimits } from './derivation-limits';
import { CertificateError } from './errors';
import { isJks } from './jks';
import { readKeyStore } from './keystore';
import type { KeyStoreContents } from './pkcs12';

/**
 * Parsing an uploaded keystore or key file derives keys from its password (PKCS#12 MAC and
 * PBE, bcrypt for OpenSSH): up to seconds of CPU even within the limits. It runs in worker
 * threads, at most MAX_WORKERS at once (kept for the next task), so the event loop keeps
 * answering other requests meanwhile.
 */
const MAX_WORKERS = 2;
/** A task still running after this is stopped (the limits make that unlikely). */
const TASK_TIME_LIMIT_MS = 60_000;

type Task = { kind: 'keystore'; data: Buffer; password: string } | { kind: 'ssh-key'; file: Buffer | string; options: ImportSshKeyOptions };
type Outcome = { ok: true; value: unknown } | { ok: false; error: { type: string; code: string; message: string } };

let running = 0;
const waiting: Array<() => void> = [];
/** Workers kept for the next task (unref'd: they never keep the process alive). */
const idle: Worker[] = [];

export async function readKeyStoreOffLoop(data: Buffer, password: string): Promise<KeyStoreContents> {
  // Cheap, and answers an over-limit file without starting a worker (the worker checks again).
  if (!isJks(data)) withinLimits(() => checkPkcs12Costs(data));
  return runTask({ kind: 'keystore', data, password }) as Promise<KeyStoreContents>;
}

export function importSshPrivateKeyOffLoop(file: Buffer | string, options: ImportSshKeyOptions = {}): Promise<ImportedSshKey> {
  return runTask({ kind: 'ssh-key', file, options }) as Promise<ImportedSshKey>;
}

async function runTask(task: Task): Promise<unknown> {
  if (running >= MAX_WORKERS) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await inWorker(task);
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

function inWorker(task: Task): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = idle.pop() ?? startWorker();
    const finish = (outcome: () => void, keep: boolean) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      if (keep && idle.length < MAX_WORKERS) idle.push(worker);
      else void worker.terminate();
      outcome();
    };
    const onMessage = (outcome: Outcome) => finish(() => (outcome.ok ? resolve(outcome.value) : reject(rebuild(outcome.error))), true);
    const onError = (error: Error) => finish(() => reject(error), false);
    const timer = setTimeout(
      () => finish(() => reject(new CertificateError('INVALID_INPUT', `Reading the file took longer than ${TASK_TIME_LIMIT_MS / 1000} s and was stopped.`)), false),
      TASK_TIME_LIMIT_MS,
    );
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage(task);
  });
}

function rebuild(error: { type: string; code: string; message: string }): Error {
  if (error.type === 'CertificateError') return new CertificateError(error.code as CertificateError['code'], error.message);
  if (error.type === 'SshKeyError') return new SshKeyError(error.code as SshKeyError['code'], error.message);
  return new Error(error.message);
}

/**
 * This same file is the worker's code. Built, it is JavaScript; under the test runner it is
 * TypeScript, compiled on load with the project's SWC settings.
 */
function startWorker(): Worker {
  const data = { role: 'key-parser' };
  const worker = __filename.endsWith('.js') ? new Worker(__filename, { workerData: data }) : new Worker(typeScriptBootstrap(), { eval: true, workerData: data });
  worker.unref();
  // An idle worker that fails or exits is simply not reused (tasks listen for their own errors).
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
  });
  return worker;
}

function typeScriptBootstrap(): string {
  const swcrc = findUp(dirname(__filename), '.swcrc');
  const options = JSON.parse(readFileSync(swcrc, 'utf8'));
  delete options.$schema;
  delete options.jsc.baseUrl;
  delete options.jsc.paths;
  return `
    const { readFileSync } = require('node:fs');
    const { transformSync } = require(${JSON.stringify(require.resolve('@swc/core'))});
    const options = ${JSON.stringify(options)};
    require.extensions['.ts'] = (module, filename) => {
      module._compile(transformSync(readFileSync(filename, 'utf8'), { ...options, filename, module: { type: 'commonjs' } }).code, filename);
    };
    require(${JSON.stringify(__filename)});
  `;
}

function findUp(dir: string, name: string): string {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, name))) return join(at, name);
    if (dirname(at) === at) throw new Error(`${name} not found above ${dir}`);
  }
}

function serve(task: Task): Outcome {
  try {
    const value = task.kind === 'keystore' ? readKeyStore(Buffer.from(task.data), task.password) : importSshPrivateKey(typeof task.file === 'string' ? task.file : Buffer.from(task.file), task.options);
    return { ok: true, value };
  } catch (error) {
    const e = error as { name?: string; code?: string; message?: string };
    const type = error instanceof CertificateError ? 'CertificateError' : error instanceof SshKeyError ? 'SshKeyError' : 'Error';
    return { ok: false, error: { type, code: e.code ?? '', message: e.message ?? 'The file could not be read' } };
  }
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'key-parser') {
  parentPort!.on('message', (task: Task) => parentPort!.postMessage(serve(task)));
}
