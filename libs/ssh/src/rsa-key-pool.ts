import type { KeyObject } from 'node:crypto';
import { generatePrivateKeyObject } from './key-generation';

export interface RsaKeyPoolOptions {
  /** Keys kept ready. */
  size?: number;
  modulusLength?: number;
  /** Generations running at once in the thread pool while refilling. */
  concurrency?: number;
}

/**
 * Keeps a few RSA keys ready so creating one answers in milliseconds. Refilling is driven
 * by take() and by finished generations, never by timers, so stop() leaves nothing behind
 * once in-flight generations settle.
 */
export class RsaKeyPool {
  readonly size: number;
  readonly modulusLength: number;
  private readonly concurrency: number;
  private readonly ready: KeyObject[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private failures = 0;

  constructor(options: RsaKeyPoolOptions = {}) {
    this.size = options.size ?? 4;
    this.modulusLength = options.modulusLength ?? 2048;
    this.concurrency = Math.max(1, options.concurrency ?? 2);
  }

  get available(): number {
    return this.ready.length;
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    this.running = true;
    this.failures = 0;
    this.refill();
  }

  /** Stops refilling, waits for generations already running and drops the ready keys. */
  async stop(): Promise<void> {
    this.running = false;
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
    this.ready.length = 0;
  }

  /** Resolves once the pool is full (or stopped); for warm-up at boot and in tests. */
  async whenFull(): Promise<void> {
    while (this.running && this.ready.length < this.size && this.inFlight.size) await Promise.race([...this.inFlight]);
  }

  /** A ready key when there is one, otherwise a freshly generated one. */
  async take(): Promise<KeyObject> {
    const key = this.ready.shift();
    this.refill();
    return key ?? generatePrivateKeyObject({ type: 'ssh-rsa', length: this.modulusLength });
  }

  private refill(): void {
    // Repeated failures mean OpenSSL cannot generate at all; take() still generates directly.
    while (this.running && this.failures < 3 && this.ready.length + this.inFlight.size < this.size && this.inFlight.size < this.concurrency) {
      const job: Promise<void> = generatePrivateKeyObject({ type: 'ssh-rsa', length: this.modulusLength })
        .then(
          (key) => {
            this.failures = 0;
            if (this.running) this.ready.push(key);
          },
          () => {
            this.failures += 1;
          },
        )
        .finally(() => {
          this.inFlight.delete(job);
          this.refill();
        });
      this.inFlight.add(job);
    }
  }
}
