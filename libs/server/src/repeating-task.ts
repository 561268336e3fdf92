import { Logger } from '@nestjs/common';

/**
 * A background job of one instance: `work` runs, then again `delayMs()` after it ended, one
 * run at a time; a failed run is logged and the next one comes as usual. `stop` (from the
 * service's shutdown hook) cancels the next run and waits for the one in progress; long work
 * checks `stopped` between its steps. The timer does not keep the process alive.
 */
export class RepeatingTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private halted = false;

  constructor(
    private readonly logger: Logger,
    /** Names the run in the log line of a failure ("Sweep" → "Sweep failed: ..."). */
    private readonly what: string,
    private readonly work: () => Promise<unknown>,
    private readonly delayMs: () => number,
  ) {}

  get stopped(): boolean {
    return this.halted;
  }

  start(firstDelayMs = this.delayMs()): void {
    if (this.halted) return;
    this.timer = setTimeout(() => {
      this.running = this.work()
        .catch((error: Error) => this.logger.error(`${this.what} failed: ${error.message}`))
        .finally(() => {
          this.running = undefined;
          this.start();
        });
    }, firstDelayMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.halted = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
