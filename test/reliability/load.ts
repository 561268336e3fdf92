import { rawRequest } from '../support/raw-http';

export interface Outcome {
  worker: number;
  op: string;
  phase: string;
  http: number;
  /** The envelope's result status, or the transport error when no answer came. */
  status: string;
  message: string;
  ms: number;
  /** What the request tried to write (a new password), for checking acknowledged writes. */
  wrote?: string;
}

export interface Op {
  name: string;
  method: string;
  path: string;
  body?: () => { text: string; wrote?: string };
}

/**
 * Runs `workers` loops, each sending the ops in turn until stop() is called; records every
 * answer with the phase it was sent in. A request with no answer (connection reset: the
 * service died) is recorded with status "no answer".
 */
export function startLoad(baseUrl: string, token: string, opsOf: (worker: number) => Op[], workers: number) {
  const outcomes: Outcome[] = [];
  let phase = 'before';
  let running = true;
  const loop = async (w: number) => {
    const ops = opsOf(w);
    for (let i = 0; running; i++) {
      const op = ops[i % ops.length];
      const body = op.body?.();
      const started = Date.now();
      const sentIn = phase;
      try {
        const answer = await rawRequest(baseUrl, {
          method: op.method,
          path: op.path,
          headers: { AUTHTOKEN: token, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
          body: body?.text,
        }, 120_000);
        const result = answer.json?.operation?.result ?? answer.json?.result ?? {};
        outcomes.push({ worker: w, op: op.name, phase: sentIn, http: answer.status, status: String(result.status ?? answer.json?.status ?? ''), message: String(result.message ?? ''), ms: Date.now() - started, wrote: body?.wrote });
      } catch (error) {
        outcomes.push({ worker: w, op: op.name, phase: sentIn, http: 0, status: 'no answer', message: (error as Error).message, ms: Date.now() - started, wrote: body?.wrote });
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const done = Promise.all(Array.from({ length: workers }, (_, w) => loop(w)));
  return {
    outcomes,
    setPhase: (p: string) => (phase = p),
    stop: async () => {
      running = false;
      await done;
      return outcomes;
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until check() is true or the time is up (generous: the machine is shared). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await sleep(everyMs);
  }
  return false;
}
