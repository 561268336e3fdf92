import { performance } from 'node:perf_hooks';
import { generateSshKey, RsaKeyPool, type GenerateSshKeyRequest } from '../libs/ssh/src';

/**
 * SSH key generation throughput by type, and the latency a caller sees for an RSA-2048
 * key with and without the pre-generated pool. Each type runs for at most `budgetMs` or
 * `maxIterations`, whichever ends first.
 */
export interface KeygenBenchOptions {
  budgetMs?: number;
  maxIterations?: number;
  /** Parallel requests per type; generation runs in libuv's thread pool. */
  concurrency?: number;
}

const TYPES: GenerateSshKeyRequest[] = [
  { type: 'ed25519' },
  { type: 'ecdsa', length: 256 },
  { type: 'ecdsa', length: 384 },
  { type: 'ecdsa', length: 521 },
  { type: 'ssh-dss', length: 1024 },
  { type: 'ssh-rsa', length: 1024 },
  { type: 'ssh-rsa', length: 2048 },
  { type: 'ssh-rsa', length: 4096 },
];

function label(request: GenerateSshKeyRequest): string {
  return request.length ? `${request.type} ${request.length}` : request.type;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

async function throughput(request: GenerateSshKeyRequest, options: Required<KeygenBenchOptions>): Promise<string> {
  const started = performance.now();
  let done = 0;
  const worker = async () => {
    while (done < options.maxIterations && performance.now() - started < options.budgetMs) {
      done += 1;
      await generateSshKey(request);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return `${label(request).padEnd(14)} ${(done / seconds).toFixed(1).padStart(8)} keys/s  (${done} keys in ${seconds.toFixed(2)} s)`;
}

async function latencies(samples: number, next: () => Promise<unknown>, pauseMs: number): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    await next();
    times.push(performance.now() - started);
    // Callers arrive spaced out; the pause lets the pool refill as it would in service.
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  times.sort((a, b) => a - b);
  return `p50 ${percentile(times, 0.5).toFixed(1)} ms, p90 ${percentile(times, 0.9).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms`;
}

export async function main(options: KeygenBenchOptions = {}): Promise<void> {
  const settings: Required<KeygenBenchOptions> = { budgetMs: 3000, maxIterations: 200, concurrency: 4, ...options };
  console.log(`SSH key generation, ${settings.concurrency} parallel, up to ${settings.budgetMs} ms or ${settings.maxIterations} keys per type`);
  for (const request of TYPES) console.log(await throughput(request, settings));

  const request: GenerateSshKeyRequest = { type: 'ssh-rsa', length: 2048 };
  console.log('\nRSA-2048 latency seen by a caller (10 requests, 300 ms apart)');
  console.log(`  without pool: ${await latencies(10, () => generateSshKey(request), 300)}`);
  const pool = new RsaKeyPool({ size: 4, modulusLength: 2048 });
  pool.start();
  await pool.whenFull();
  try {
    console.log(`  with pool:    ${await latencies(10, () => generateSshKey(request, { rsaPool: pool }), 300)}`);
    console.log(`  pool drained by a burst of 8: ${await latencies(8, () => generateSshKey(request, { rsaPool: pool }), 0)}`);
  } finally {
    await pool.stop();
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
