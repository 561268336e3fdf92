import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/**
 * Reading an uploaded keystore or key file derives keys from its password (PKCS#12 MAC and
 * PBE, bcrypt for OpenSSH): up to seconds of CPU even within the derivation limits. Such a
 * reading runs here, in worker threads, at most MAX_WORKERS at once for the whole process
 * (kept for the next task), so the event loop keeps answering other requests meanwhile.
 *
 * A task names a module and one of its exported functions; the worker requires that module
 * and calls the function. Arguments and results cross by structured clone: a Buffer arrives
 * as a Uint8Array, so the worker turns Uint8Array arguments back into Buffers.
 */
const MAX_WORKERS = 2;
/** A task still running after this is stopped (the limits make that unlikely). */
const TASK_TIME_LIMIT_MS = 60_000;

export interface OffLoopTask {
  /** Absolute path of the module, as `require.resolve` gives it (.ts under the tests, .js built). */
  module: string;
  /** The exported function to call. */
  name: string;
  args: unknown[];
}

/** An error the caller knows how to answer, rebuilt by name from what the worker sends back. */
export type OffLoopErrorType = new (code: never, message: string) => Error;

export interface OffLoopOptions {
  /** Error classes rebuilt as themselves (matched by constructor name); others become Error. */
  errors: OffLoopErrorType[];
  /** The error for a task stopped at the time limit. */
  tooSlow: (limitSeconds: number) => Error;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: { type: string; code: string; message: string } };

let running = 0;
const waiting: Array<() => void> = [];
/** Workers kept for the next task (unref'd: they never keep the process alive). */
const idle: Worker[] = [];

export async function runOffLoop<T>(task: OffLoopTask, options: OffLoopOptions): Promise<T> {
  if (running >= MAX_WORKERS) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return (await inWorker(task, options)) as T;
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

function inWorker(task: OffLoopTask, options: OffLoopOptions): Promise<unknown> {
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
    const onMessage = (outcome: Outcome) => finish(() => (outcome.ok ? resolve(outcome.value) : reject(rebuild(outcome.error, options.errors))), true);
    const onError = (error: Error) => finish(() => reject(error), false);
    const timer = setTimeout(() => finish(() => reject(options.tooSlow(TASK_TIME_LIMIT_MS / 1000)), false), TASK_TIME_LIMIT_MS);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage(task);
  });
}

function rebuild(error: { type: string; code: string; message: string }, known: OffLoopErrorType[]): Error {
  const type = known.find((candidate) => candidate.name === error.type);
  return type ? new type(error.code as never, error.message) : new Error(error.message);
}

/**
 * This same file is the worker's code. Built, it is JavaScript; under the test runner it is
 * TypeScript, compiled on load with the project's SWC settings (found by @swc/core from the
 * file's own directory, so the @app/* aliases resolve as in the tests).
 */
function startWorker(): Worker {
  const data = { role: 'off-loop' };
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

function serve(task: OffLoopTask): Outcome {
  try {
    const run = (require(task.module) as Record<string, (...args: unknown[]) => unknown>)[task.name];
    if (typeof run !== 'function') throw new Error(`${task.module} has no function ${task.name}`);
    const args = task.args.map((arg) => (arg instanceof Uint8Array ? Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength) : arg));
    return { ok: true, value: run(...args) };
  } catch (error) {
    const e = error as { code?: string; message?: string };
    const type = error instanceof Error ? error.constructor.name : 'Error';
    return { ok: false, error: { type, code: e.code ?? '', message: e.message ?? 'The file could not be read' } };
  }
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'off-loop') {
  parentPort!.on('message', (task: OffLoopTask) => parentPort!.postMessage(serve(task)));
}
